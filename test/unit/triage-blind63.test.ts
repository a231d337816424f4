// The message classes blind batch 63 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('allocation failures in other words', () => {
  it("reads PhysX's GPU allocator, Rockchip's media buffers and TensorRT's bad_alloc", () => {
    expect(root(['PxgCudaDeviceMemoryAllocator fail to allocate memory 1073741824 bytes!! Result = 2'])).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 1073741824 });
    expect(root(['[2026-02-01 10:00:00,000][ERROR][rockchip_memory.cc:112 ] Malloc mpp buffer fail, size = 33554432'])).toMatchObject({ kind: 'catchable-oom', requestedBytes: 33554432 });
    expect(root(['[02/01/2026-10:00:00] [TRT] [E] 1: Unexpected exception std::bad_alloc'])).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it("reads torch_memory_saver's exit on status 2 as an abort on the API's platform", () => {
    expect(root(['[torch_memory_saver.cpp] CUresult error  result=2 file=csrc/core.cpp func=cu_mem_create line=88'])).toMatchObject({ kind: 'runtime-abort', platform: 'cuda' });
    expect(root(['[torch_memory_saver.cpp] hipError_t error  result=2 file=csrc/hip.cpp func=cu_mem_create line=90'])).toMatchObject({ kind: 'runtime-abort', platform: 'rocm' });
  });

  it('reads the driver status cut inside its name', () => {
    expect(root(['[E 05/01/25 10:00:00.000 4242] [cuda_driver.h:operator()@92] CUDA Error CUDA_ERROR_OUT_OF_ME'])?.kind).toBe('catchable-oom');
  });

  it("reads PyTorch's memory summary counting an OOM as a noted OOM, and yields it to a failure", () => {
    const table = ['|===========================================================================|', '|                  PyTorch CUDA memory summary, device ID 0                 |', '|---------------------------------------------------------------------------|', '|            CUDA OOMs: 2            |        cudaMalloc retries: 3         |'];
    expect(root(table)?.kind).toBe('catchable-oom');
    expect(root([...table, 'Traceback (most recent call last):', '  File "/w/train.py", line 9, in <module>', '    run()', "KeyError: 'labels'"])?.kind).toBe('not-oom');
    expect(root(['|            CUDA OOMs: 0            |        cudaMalloc retries: 0         |'])).toBeUndefined();
  });
});

describe('review', () => {
  it('does not read a list of possible reasons as a failure stated', () => {
    expect(root(['[Error] [gpu.foundation.plugin] A GPU crash occurred. Exiting the application...', 'Reasons for the failure: a device lost, out of memory, or an unexpected bug.'])?.kind).not.toBe('catchable-oom');
  });
});
