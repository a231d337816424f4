import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

// The simulator's free lists (native/src/free_list.cc) are checked against std::set by a C++
// program built here with the sanitizers on: lists of one chunk and of many, equal keys, splits
// and merges that move an entry across chunks. Replay tests see only short lists.
const root = path.join(__dirname, '..', '..');

describe('simulator free lists', () => {
  it('order, search and replace entries exactly as std::set does, under ASan and UBSan', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'headroom-free-list-'));
    try {
      const binary = path.join(dir, 'free_list_test');
      const build = spawnSync(
        'g++',
        ['-std=c++17', '-O1', '-g', '-fsanitize=address,undefined', '-fno-sanitize-recover=undefined',
          '-I', path.join(root, 'native', 'src'), path.join(root, 'native', 'src', 'free_list.cc'),
          path.join(root, 'native', 'test', 'free_list_test.cc'), '-o', binary],
        { encoding: 'utf8' },
      );
      expect(build.stderr).toBe('');
      expect(build.status).toBe(0);
      const run = spawnSync(binary, [], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('ok 800000');
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
