// The message classes blind batch 32 showed the engine did not read: OOMs whose process then ended (an uncaught exception
// reported by the application's own handler, MPI_Abort on every rank, TensorRT's numbered check under terminate, a CUDA
// check macro with the line first), torch_memory_saver's cudaError form, the caching allocator's compact and unprefixed
// messages, the JDK's direct-buffer limit and Heroku's dyno memory. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('an OOM the process then ended on', () => {
  it("reads an application's 'Unhandled exception …, terminating' as an abort", () => {
    const log = "Unhandled exception of type 'St13runtime_error' with message 'buf.hpp(88) 'hipMalloc(&p, n)' returned error  : 'hipErrorOutOfMemory': 'out of memory'!', terminating";
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false });
    const reserve = "Unhandled exception of type 'St13runtime_error' with message 'Cannot reserve 2048 MiB as there is only 12 MiB free device memory left', terminating";
    expect(root(reserve)).toMatchObject({ kind: 'runtime-abort', catchable: false, requestedBytes: 2048 * 1024 ** 2, freeBytes: 12 * 1024 ** 2 });
  });

  it("reads MPI_Abort's banner under a CUDA out-of-memory status as an abort on the rank it names", () => {
    const log = ['cudaMemcpyAsync failed with the following error:', '\tError 2 cudaErrorMemoryAllocation: out of memory', 'MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD', 'with errorcode 1.'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false, rank: 3 });
  });

  it("reads TensorRT's numbered check under terminate as the OOM, not the terminate", () => {
    const log = ['engine.cpp (42) - Cuda Error in allocate: 2', "terminate called after throwing an instance of 'nvinfer1::CudaError'", '  what():  std::exception'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });

  it('reads a CUDA check macro that prints the line before the file as an exit', () => {
    expect(root('Got bad cuda status: out of memory at line: 113/home/u/proj/src/kernels.cu')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda' });
    // A Python exception carrying the same words was raised, not exited on.
    expect(root('RuntimeError: out of memory at line: 113/home/u/proj/src/kernels.cu')?.kind).not.toBe('runtime-abort');
  });

  it("reads torch_memory_saver's cudaError form as an exit, and not the hedged warning above it", () => {
    const log = ['[torch_memory_saver.cpp] cuMemCreate CUDA_ERROR_OUT_OF_MEMORY (may not be an issue e.g. torch allocator will free cache and retry)', '[torch_memory_saver.cpp] cudaError error: 2 (out of memory)  file=csrc/core.cpp func=pause line=90'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });
});

describe("the caching allocator's compact and unprefixed messages", () => {
  it('reads the compact sentence on the line under the head', () => {
    const log = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. \nGPU 3 has 39.39 GiB total, 1.25 GiB free, 38.10 GiB in use by this process.';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 3, requestedBytes: 2 * 1024 ** 3, deviceTotalBytes: Math.round(39.39 * 1024 ** 3), freeBytes: Math.round(1.25 * 1024 ** 3), processInUseBytes: Math.round(38.1 * 1024 ** 3) });
  });

  it("reads a failed expandable segment's numbers without the 'expandable_segments:' prefix", () => {
    const log = '[rank2]:[W101 10:00:00.000 CUDACachingAllocator.cpp:3900] memory allocation failed with OOM on device 2 while trying to allocate 1073741824 bytes (free: 524288000, total: 85899345920).';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2, rank: 2, requestedBytes: 1073741824, freeBytes: 524288000, deviceTotalBytes: 85899345920 });
  });
});

describe("torch 2.11's messages as the H200 printed them (docs/GPU-RESULTS.md, bench/oom-messages/print_oom.py)", () => {
  const GiB = (n: number) => Math.round(n * 1024 ** 3);
  it('reads every number of the long form and of cudaMallocAsync', () => {
    const native =
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 139.80 GiB. GPU 0 has a total capacity of 139.80 GiB of which 104.34 GiB is free. Including non-PyTorch memory, this process has 35.46 GiB memory in use. Of the allocated memory 34.95 GiB is allocated by PyTorch, and 1.02 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)';
    expect(root(native)).toMatchObject({ kind: 'catchable-oom', device: 0, requestedBytes: GiB(139.8), deviceTotalBytes: GiB(139.8), freeBytes: GiB(104.34), processInUseBytes: GiB(35.46), allocatedBytes: GiB(34.95), reservedUnallocatedBytes: Math.round(1.02 * 1024 ** 2) });
    const async = [
      'torch.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)',
      'Currently allocated     : 34.95 GiB',
      'Requested               : 139.80 GiB',
      'Device limit            : 139.80 GiB',
      'Free (according to CUDA): 31.12 MiB',
      'PyTorch limit (set by user-supplied memory fraction)',
      '                        : 17179869184.00 GiB',
    ].join('\n');
    const v = root(async)!;
    expect(v).toMatchObject({ kind: 'catchable-oom', device: 0, requestedBytes: GiB(139.8), deviceTotalBytes: GiB(139.8), allocatedBytes: GiB(34.95), freeBytes: Math.round(31.12 * 1024 ** 2) });
    // The no-limit value is no limit.
    expect(v.allowedBytes).toBeUndefined();
  });
});

describe('host numbers', () => {
  it("reads the JDK's direct-buffer limit", () => {
    const log = 'Caused by: java.lang.OutOfMemoryError: Cannot reserve 1048576 bytes of direct buffer memory (allocated: 133169152, limit: 134217728)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 1048576, allocatedBytes: 133169152, allowedBytes: 134217728 });
  });

  it("reads the dyno's memory above Heroku's R15", () => {
    const log = 'heroku[worker.1]: Process running mem=2048M(400.0%)\nheroku[worker.1]: Error R15 (Memory quota vastly exceeded)\nheroku[worker.1]: Stopping process with SIGKILL';
    expect(root(log)).toMatchObject({ kind: 'host-oom', processInUseBytes: 2048 * 1024 ** 2 });
  });
});
