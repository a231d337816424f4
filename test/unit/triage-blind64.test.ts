// The message classes blind batch 64 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("TensorFlow's allocator", () => {
  it("reads TensorFlow 1.x's chunk map (\"Chunk at … of size\"), with addresses in either case, as the dump of a failed allocation", () => {
    const dump = (at: string) => [`2018-01-01 10:00:00.000001: I tensorflow/core/common_runtime/bfc_allocator.cc:665] Chunk at ${at} of size 512`, `2018-01-01 10:00:00.000002: I tensorflow/core/common_runtime/bfc_allocator.cc:665] Chunk at ${at}0 of size 1024`];
    expect(root(dump('0x7f0a1b000000'))?.kind).toBe('catchable-oom');
    expect(root(dump('00000007AE122000'))?.kind).toBe('catchable-oom');
  });

  it('reads its OOM message with the first letter lost at the start of a line', () => {
    expect(root(['OM when allocating tensor with shape[64,512,7,7] and type float on /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc'])).toMatchObject({ kind: 'catchable-oom', device: 1 });
  });
});
