// The message classes blind batch 71 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('host memory refused in the words of other runtimes', () => {
  it("reads OSError's errno 12 as ENOMEM, also when the words after it were cut", () => {
    const log = ['Traceback (most recent call last):', '  File "prep.py", line 30, in <module>', '    pool = Pool(32)', 'OSError: [Errno 12] Cann'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: 'prep.py', line: 30 });
  });

  it("reads NumPy's 'array is too big' as a request over the largest allocation", () => {
    const log = ['Traceback (most recent call last):', '  File "buffer.py", line 12, in __init__', '    self.obs = np.empty((n, 84, 84), dtype=np.uint8)', 'ValueError: array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it("does not read another ValueError about size as an OOM", () => {
    const log = ['ValueError: array is too small for the requested window'];
    expect(root(log)?.kind).toBe('not-oom');
  });

  it("reads MSVC's 'bad allocation' as std::bad_alloc", () => {
    const log = ['Error: bad allocation'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });
});

describe('device memory messages cut or wrapped', () => {
  it("reads MXNet's cudaMalloc failure cut inside its last word", () => {
    const log = ['[10:00:00] src/storage/./pooled_storage_manager.h:84: cudaMalloc failed: out of mem'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });

  it('reads the device of a message cut inside its first sentence', () => {
    const log = ['OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 1 has a total capacity of 22.1'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', device: 1, requestedBytes: 1.5 * 1024 ** 3 });
  });

  it('puts back a message a paste wrapped inside its words', () => {
    const log = [
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. GPU 0 has a total capacity of 15.70 GiB of which 20.00 MiB is free. Including non-PyTorch memory, this proce',
      'ss has 15.60 GiB memory in use. Of the allocated memory 14.90 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but unallocated.',
    ];
    expect(root(log)).toMatchObject({ processInUseBytes: Math.round(15.6 * 1024 ** 3), allocatedBytes: Math.round(14.9 * 1024 ** 3), reservedUnallocatedBytes: 300 * 1024 ** 2 });
  });
});

describe("the driver's JIT compiler out of memory beside a CUDA error", () => {
  it("reads 'fatal : Memory allocation failure' over 'CUDA error: unknown error' as an OOM", () => {
    const log = ['fatal   : Memory allocation failure', 'RuntimeError: CUDA error: unknown error', 'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it('leaves a CUDA error with no such line a not-oom', () => {
    const log = ['RuntimeError: CUDA error: unknown error', 'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.'];
    expect(root(log)?.kind).toBe('not-oom');
  });
});

describe("Windows' fail-fast status after an allocation failure", () => {
  it('makes the failure an abort', () => {
    const log = ['Error: bad allocation', '', 'C:\\apps\\trainer.exe (process 4242) exited with code -1073740791.'];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });
});
