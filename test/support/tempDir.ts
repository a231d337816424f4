import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll } from 'vitest';

// Temp folders made by one test file, removed once that file's tests are done. Each test file
// loads its own copy of this module, so the hook below belongs to the importing file. Before
// this, every run left its folders behind: a machine that had run the suite for a week held
// 11,000 of them in /tmp.
const made: string[] = [];

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});
