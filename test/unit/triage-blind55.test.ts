// The message classes blind batch 55 showed the engine did not read: Arrow's MemoryError with its allocation size, PyTorch
// writing a batch to a full /dev/shm, DataLoader's kill message without its spaces, Ascend's AI-core and vector-core kernel
// timeouts, and an application's exception that says the VRAM was not enough. Each test is a variant written for the class
// (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('host memory in data pipelines', () => {
  it("reads Arrow's MemoryError with the size its allocator asked for", () => {
    expect(root('pyarrow.lib.ArrowMemoryError: realloc of size 4294967296 failed')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 4294967296 });
    expect(root('pyarrow.lib.ArrowMemoryError: malloc of size 128 failed')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 128 });
  });

  it('reads a batch that could not be written to /dev/shm as shared memory running out', () => {
    expect(root('RuntimeError: unable to write to file </torch_4242_1234567890_0>: No space left on device (28)')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    expect(root('RuntimeError: unable to write to file </tmp/results.csv>')?.kind).toBe('not-oom');
  });

  it("reads DataLoader's kill message with its spaces lost", () => {
    expect(root('RuntimeError:DataLoader worker(pid 4242) is killed by signal:killed.')?.kind).toBe('host-oom');
  });
});

describe("Ascend's kernel timeouts", () => {
  it('reads a vector-core timeout as a hang on the chip the block names', () => {
    const log = [
      '[ERROR] aclrtSynchronizeStream(stream) failed: 507034 (/work/kernels/main.cpp:90)',
      'EZ9999[PID: 100] 2026-01-01-10:00:00.000.000 (EZ9999):  The error from device(chipId:3, dieId:0), serial number is 7, there is an exception of aivec error, core id is 2',
      '       Kernel task happen error, retCode=0x30, [vector core timeout].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1729]',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', platform: 'npu', device: 3 });
  });

  it('reads the AI core execution timeout', () => {
    expect(root('[Error]: The aicore execution times out.\n        Rectify the fault based on the error information in the ascend log.')).toMatchObject({ kind: 'hang', platform: 'npu' });
  });
});

describe('words of an application', () => {
  it('reads an exception that says the VRAM was not enough as a GPU OOM', () => {
    expect(root("RuntimeError: generation failed: not enough VRAM for 1080p, lower the resolution")).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });
});
