/**
 * VS Code debug configurations (`.vscode/launch.json`) that run a training script: their `args` are
 * the arguments the script is really run with, as a launch script's would be. The file is JSON with
 * comments, read with jsonc-parser (VS Code's own reader).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
// The ES module build: the package's `main` is a UMD bundle whose require() calls bundlers cannot follow.
import { parse } from 'jsonc-parser/lib/esm/main.js';
import { scriptArguments } from './launch';

export interface LaunchConfigArgs {
  /** `launch.json` and the configuration's name, for the plan's assumptions. */
  source: string;
  args: Map<string, string>;
}

/** Folders searched upwards from the script for `.vscode/launch.json` (a script deep in a repository). */
const MAX_LEVELS = 8;

interface CachedConfigs {
  mtimeMs: number;
  size: number;
  configurations: unknown[];
}

const cache = new Map<string, CachedConfigs>();

function configurationsOf(file: string): unknown[] | undefined {
  try {
    const st = statSync(file);
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.configurations;
    // jsonc-parser reads what it can of a file with syntax errors, as VS Code does.
    const json = parse(readFileSync(file, 'utf8'), [], { allowTrailingComma: true }) as { configurations?: unknown } | undefined;
    const configurations = Array.isArray(json?.configurations) ? json.configurations : [];
    cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, configurations });
    return configurations;
  } catch {
    // No launch.json here, or one we cannot read: the script's own defaults stand.
    return undefined;
  }
}

/** The path with symlinks resolved, compared without case on Windows (drive letters). */
function canonical(file: string): string {
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    // Not on disk (an unsaved editor): compare the path as given.
  }
  return process.platform === 'win32' ? real.toLowerCase() : real;
}

/**
 * The `args` of the first launch configuration whose `program` is `scriptPath`, or is `${file}` (VS Code's
 * "Python: Current File", which runs whatever file is open).
 */
export function launchConfigArgs(scriptPath: string): LaunchConfigArgs | undefined {
  const script = canonical(path.resolve(scriptPath));
  let folder = path.dirname(script);
  for (let level = 0; level < MAX_LEVELS; level++) {
    const file = path.join(folder, '.vscode', 'launch.json');
    for (const config of configurationsOf(file) ?? []) {
      if (typeof config !== 'object' || config === null) continue;
      const { program, args, name } = config as { program?: unknown; args?: unknown; name?: unknown };
      if (typeof program !== 'string' || !Array.isArray(args)) continue;
      const expanded = program.replace(/\$\{file\}/g, scriptPath).replace(/\$\{fileDirname\}/g, path.dirname(scriptPath))
        .replace(/\$\{workspaceFolder\}/g, folder).replace(/\$\{workspaceRoot\}/g, folder);
      if (canonical(path.resolve(folder, expanded)) !== script) continue;
      const tokens = args.filter((a): a is string => typeof a === 'string');
      return { source: `.vscode/launch.json "${typeof name === 'string' ? name : program}"`, args: scriptArguments(tokens) };
    }
    const parent = path.dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return undefined;
}
