import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SourceFrame } from '../protocol';

function isFile(p: string): boolean {
  return existsSync(p) && statSync(p).isFile();
}

/**
 * Finds the workspace file a traceback path refers to. Logs usually come from another machine or a
 * container, so the printed absolute path rarely exists here: after the path itself, try its
 * trailing components under each workspace folder, longest suffix first.
 */
export function resolveWorkspaceFile(printedPath: string, folders: readonly string[]): string | undefined {
  if (path.isAbsolute(printedPath) && isFile(printedPath) && folders.some((f) => printedPath.startsWith(f + path.sep))) {
    return printedPath;
  }
  const parts = printedPath.split(/[\\/]+/).filter((p) => p.length > 0);
  for (let start = 0; start < parts.length; start++) {
    const suffix = parts.slice(start);
    for (const folder of folders) {
      const candidate = path.join(folder, ...suffix);
      if (isFile(candidate)) return candidate;
    }
  }
  return undefined;
}

/** Returns the frames with `workspaceUri` set where a workspace file was found. */
export function mapFramesToWorkspace(frames: readonly SourceFrame[], folders: readonly string[]): SourceFrame[] {
  return frames.map((frame) => {
    const file = resolveWorkspaceFile(frame.file, folders);
    return file ? { ...frame, workspaceUri: pathToFileURL(file).href } : frame;
  });
}
