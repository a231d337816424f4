/**
 * The probe catalog, read from the probes' own headers: each probe is one Python file under
 * probes/ whose docstring starts with `id: title` and holds `Seed:`, `Needs GPU:`, `Min ranks:` and
 * `Variants:` lines. Adding a probe is adding a file.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ProbeInfo } from '../protocol';
import { RunError } from './errors';
import type { RunBundle } from './targets/target';

export interface ProbeEntry extends ProbeInfo {
  file: string;
}

/**
 * Where the Python side lives: beside this module when run from source (tests), and under
 * dist/runs/ in the bundle (esbuild.mjs copies it there).
 */
function runtimeRoot(): string {
  const candidates = [__dirname, path.join(__dirname, 'runs')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'probes')) && existsSync(path.join(dir, 'harness')));
  if (!found) throw new RunError('HR_RUN_BUNDLE', `Headroom's probes were not found next to ${__dirname}`);
  return found;
}

function shimSourcePath(root: string): string {
  const candidates = [path.join(root, 'preload', 'headroom_preload.c'), path.resolve(root, '..', '..', '..', 'native', 'preload', 'headroom_preload.c')];
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}

const HEADER_FIELD = /^(Seed|Needs GPU|Min ranks|Variants):\s*(.*)$/;

/** Parses a probe file's header; throws HR_PROBE_HEADER when a field is missing. */
export function parseProbeHeader(source: string, file: string): ProbeEntry {
  const doc = /^\s*"""([\s\S]*?)"""/.exec(source);
  const lines = (doc?.[1] ?? '').split('\n').map((l) => l.trim());
  const first = /^([a-z][a-z0-9-]*):\s*(.+)$/.exec(lines[0] ?? '');
  const fields = new Map<string, string>();
  for (const line of lines) {
    const m = HEADER_FIELD.exec(line);
    if (m && !fields.has(m[1]!)) fields.set(m[1]!, m[2]!.trim());
  }
  const missing = ['Seed', 'Needs GPU', 'Min ranks', 'Variants'].filter((k) => !fields.has(k));
  if (!first || missing.length > 0) {
    throw new RunError('HR_PROBE_HEADER', `${file}: the probe header lacks ${first ? missing.join(', ') : 'its "id: title" line'}`);
  }
  return {
    id: first[1]!,
    title: first[2]!.trim(),
    seed: fields.get('Seed')!,
    variants: fields.get('Variants')!.split(',').map((v) => v.trim()).filter((v) => v.length > 0),
    needsGpu: /^yes$/i.test(fields.get('Needs GPU')!),
    minRanks: Math.max(1, Number.parseInt(fields.get('Min ranks')!, 10) || 1),
    file,
  };
}

let cached: ProbeEntry[] | undefined;

/** Every probe, in a fixed order (the seeds' probes first, by seed). */
export function listProbes(): ProbeEntry[] {
  if (!cached) {
    const dir = path.join(runtimeRoot(), 'probes');
    cached = readdirSync(dir)
      .filter((name) => name.endsWith('.py') && !name.startsWith('_'))
      .map((name) => parseProbeHeader(readFileSync(path.join(dir, name), 'utf8'), path.join(dir, name)))
      .sort((a, b) => (a.seed === b.seed ? a.id.localeCompare(b.id) : a.seed === '-' ? 1 : b.seed === '-' ? -1 : a.seed.localeCompare(b.seed)));
  }
  return cached;
}

export function findProbe(id: string): ProbeEntry {
  const probe = listProbes().find((p) => p.id === id);
  if (!probe) {
    throw new RunError('HR_UNKNOWN_PROBE', `unknown probe "${id}"; probes: ${listProbes().map((p) => p.id).join(', ')}`);
  }
  return probe;
}

/** The files one run of `probe` needs on its target. */
export function bundleFor(probe: ProbeEntry): RunBundle {
  const root = runtimeRoot();
  return { harnessDir: path.join(root, 'harness'), probeFile: probe.file, shimSource: shimSourcePath(root) };
}

/** Only the probe catalog's public fields (what `repro list --json` prints). */
export function publicInfo(p: ProbeEntry): ProbeInfo {
  return { id: p.id, title: p.title, seed: p.seed, variants: p.variants, needsGpu: p.needsGpu, minRanks: p.minRanks };
}
