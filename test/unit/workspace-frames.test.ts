import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWorkspaceFile } from '../../server/src/triage/workspaceFrames';
import { tempDir } from '../support/tempDir';

describe('mapping traceback paths to workspace files', () => {
  const folder = tempDir('headroom ws ü-');
  mkdirSync(path.join(folder, 'src', 'pkg'), { recursive: true });
  writeFileSync(path.join(folder, 'src', 'pkg', 'train.py'), '');
  writeFileSync(path.join(folder, 'train.py'), '');

  it('matches the longest trailing part of a path printed on another machine', () => {
    expect(resolveWorkspaceFile('/home/bob/job/src/pkg/train.py', [folder])).toBe(path.join(folder, 'src', 'pkg', 'train.py'));
    expect(resolveWorkspaceFile('/mnt/other/train.py', [folder])).toBe(path.join(folder, 'train.py'));
  });

  it('finds nothing for files outside the workspace', () => {
    expect(resolveWorkspaceFile('/usr/lib/python3.11/threading.py', [folder])).toBeUndefined();
  });
});
