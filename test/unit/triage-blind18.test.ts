// The message classes blind batch 18 showed the engine did not know: the shell's report of a SIGBUS as a
// line of its own, fish's report of a job killed by SIGKILL, Docker's exec error with status 137, the
// sanitizers' allocator failures and macOS's malloc mmap failure, glibc's internal assertion, cuda-gdb's GPU
// exception report and CANN runtime codes in a caller's ACL error line, vulkano's out-of-memory error values
// and ggml's Vulkan request size, the dynamic loader's static TLS error, which is not memory, and an exception
// line behind vLLM's logger prefix, PyTorch's allocator message hard-wrapped at a space the wrap dropped, and
// MPS's buffer-size checks naming the platform, and CANN's EL0004 for HCCL's communication resources. Each test is a variant written for the class (other numbers, names and prefixes), not
// a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('native crashes the tail pass reads', () => {
  it("reads the shell's 'Bus error' line (SIGBUS) as a native crash, not an OOM", () => {
    const log = ['loading shards 3/8', 'Bus error (core dumped)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('epoch 0 step 12\nBus error')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // Some shells and pastes write it in lower case, as a line of its own.
    expect(root('writing cache\nbus error (core dumped)')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // Prose that mentions a bus error is not a crash report.
    expect(all('the PCIe bus error counter stays at zero')).toEqual([]);
  });
});

describe('host kills the tail pass reads', () => {
  it("reads fish's report of a job terminated by SIGKILL as a host kill, and other signals not", () => {
    const log = ['Loading checkpoint shards: 100%|##########| 4/4', "fish: 'torchrun --nproc 2 finetune.py' terminated by signal SIGKILL (Forced quit)"].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root("fish: Job 3, 'node build.js' terminated by signal SIGKILL (Forced quit)")).toMatchObject({ kind: 'host-oom' });
    expect(root("fish: Job 1, './solver in.dat' terminated by signal SIGSEGV (Address boundary error)")?.kind).toBe('not-oom');
  });

  it("reads Docker's exec error with exit code 137 (as kubectl exec prints it) as a host kill", () => {
    expect(root('error: Internal error occurred: error executing command in container: Error executing in Docker Container: 137')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(root('command terminated with non-zero exit code: Error executing in Docker Container: 1')?.kind).not.toBe('host-oom');
  });
});

describe('host allocation failures the tail pass reads', () => {
  it("reads a sanitizer's failed mmap as an abort with the request", () => {
    const log = ['==4711==ERROR: AddressSanitizer failed to allocate 0x40001000 (1073745920) bytes of LargeMmapAllocator (error code: 12)', '==4711==Process memory map follows:'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false, requestedBytes: 1073745920 });
  });

  it("reads a sanitizer's allocation-size-too-big report as an abort, the request only when a number holds it exactly", () => {
    const big = '==88==ERROR: AddressSanitizer: requested allocation size 0x30000000000 (0x30000001000 after adjustments for alignment, red zones etc.) exceeds maximum supported size of 0x10000000000 (thread T0)';
    expect(root(big)).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', requestedBytes: 3298534883328 });
    const negative = '==88==ERROR: AddressSanitizer: requested allocation size 0xfffffffffffffff0 (0x800 after adjustments for alignment, red zones etc.) exceeds maximum supported size of 0x10000000000 (thread T0)';
    expect(root(negative)).toMatchObject({ kind: 'runtime-abort' });
    expect(root(negative)?.requestedBytes).toBeUndefined();
  });

  it("reads macOS's 'malloc: *** mmap(size=N) failed (error code=12)' as a catchable host OOM with the request", () => {
    const log = ['myapp(412,0x16f2a3000) malloc: *** mmap(size=268435456) failed (error code=12)', "*** error: can't allocate region", '*** set a breakpoint in malloc_error_break to debug'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true, requestedBytes: 268435456 });
  });
});

describe('native and runtime failures named by their tools', () => {
  it("reads glibc's 'Fatal glibc error: … assertion failed' as a native abort, not an OOM", () => {
    const log = ['worker 3 started', 'Fatal glibc error: malloc.c:4376 (_int_malloc): assertion failed: chunk_main_arena (fwd)', 'Aborted (core dumped)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("reads cuda-gdb's GPU exception as a CUDA not-oom failure on the device it switched focus to", () => {
    const log = [
      'CUDA Exception: Warp Out-of-range Address',
      'The exception was triggered at PC 0x7fffd8a3c1f0',
      '',
      'Thread 1 "python" received signal CUDA_EXCEPTION_5, Warp Out-of-range Address.',
      '[Switching focus to CUDA kernel 3, grid 12, block (4,0,0), thread (32,0,0), device 2, sm 7, warp 1, lane 0]',
      '0x00007fffd8a3c200 in gather_kernel<<<(64,1,1),(128,1,1)>>> ()',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false, device: 2 });
  });

  it('reads a CANN runtime code in an ACL error line: 207001 is an NPU OOM, other codes are not-oom on the NPU', () => {
    expect(root('acl Error, code: 207001 at /src/csrc/npu_pool.cpp:118')).toMatchObject({ kind: 'catchable-oom', platform: 'npu', catchable: true });
    expect(root('[E] ACL ERROR: api=aclrtSetDevice, code=107001, caller=Init,device.cc:42.')).toMatchObject({ kind: 'not-oom', platform: 'npu', catchable: true });
  });
});

describe("Vulkan's out-of-memory results as Rust and ggml print them", () => {
  it("reads vulkano's OomError(OutOfDeviceMemory) in a panic as a catchable OOM, and OutOfHostMemory as host memory", () => {
    const log = ['Selected physical device: AMD Radeon RX 6600 (type: DiscreteGpu)', "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: OomError(OutOfDeviceMemory)', src/renderer.rs:212:58"].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true });
    // An NVIDIA GTX card named without 'GeForce' names cuda.
    const gtx = ['Using device: GTX 1080 (type: DiscreteGpu)', "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: OomError(OutOfDeviceMemory)', src/main.rs:88:14"].join('\n');
    expect(root(gtx)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root("thread 'main' panicked at src/app.rs:40:10:\ncalled `Result::unwrap()` on an `Err` value: VulkanError(OutOfHostMemory)")).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it("takes the request from ggml_vulkan's allocation line above the Vulkan-Hpp error", () => {
    const log = ['ggml_vulkan: Device memory allocation of size 805306368 failed.', 'ggml_vulkan: Requested buffer size exceeds device memory allocation limit: ErrorOutOfDeviceMemory'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 805306368 });
  });
});

describe('memory words that are not memory running out', () => {
  it("reads the loader's 'cannot allocate memory in static TLS block' as a not-oom import failure", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/app/run.py", line 3, in <module>',
      '    import sklearn',
      'OSError: /usr/lib/aarch64-linux-gnu/libgomp.so.1: cannot allocate memory in static TLS block',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // The same words without the loader's TLS are still an OOM.
    expect(root('RuntimeError: cannot allocate memory for the tensor of 4096 bytes')?.kind).toBe('catchable-oom');
  });
});

describe("an exception behind vLLM's logger prefix", () => {
  it('reads the exception line of a logged traceback with its frames, and leaves a warning with the same prefix', () => {
    const log = [
      'ERROR 11-12 10:01:02 [engine.py:120] Traceback (most recent call last):',
      'ERROR 11-12 10:01:02 [engine.py:120]   File "/srv/app/serve/loader.py", line 58, in load_weights',
      'ERROR 11-12 10:01:02 [engine.py:120]     weights = read_shard(path)',
      'ERROR 11-12 10:01:02 [engine.py:120]               ^^^^^^^^^^^^^^^^',
      'ERROR 11-12 10:01:02 [engine.py:120]   File "/srv/app/serve/shards.py", line 17, in read_shard',
      "ERROR 11-12 10:01:02 [engine.py:120]     raise ValueError(f'bad shard {path}')",
      "ERROR 11-12 10:01:02 [engine.py:120] ValueError: bad shard /models/x/part-3.safetensors",
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/srv/app/serve/shards.py', line: 17 });
    expect(all('WARNING 11-12 10:01:02 [config.py:88] UserWarning: fp8 is experimental')).toEqual([]);
  });
});

describe("PyTorch's allocator message hard-wrapped at a space", () => {
  it('reads the free bytes when a fixed-width wrap dropped the space between two words of a sentence', () => {
    const msg = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 1 has a total capacity of 79.15 GiB of which 301.50 MiB is free. Including non-PyTorch memory, this process has 78.84 GiB memory in use. Of the allocated memory 75.02 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated.';
    // A terminal 136 columns wide broke the line where a space fell on the edge, and the space is gone.
    const width = 136;
    const lines: string[] = [];
    for (let rest = msg; rest.length > 0; rest = rest.slice(width + 1)) lines.push(rest.slice(0, width));
    expect(lines[0]!.endsWith('MiB is')).toBe(true);
    expect(root(lines.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, requestedBytes: 536870912, freeBytes: 316145664 });
  });
});

describe("MPS's buffer-size checks name the platform", () => {
  it("takes mps from PyTorch's Placeholder check and from MPSCore's MPSNDArray assertion", () => {
    const placeholder = ['  File "/Users/me/proj/model.py", line 40, in forward', '    y = torch.cat([a, b], dim=1)', 'RuntimeError: Placeholder buffer size (8192) is not large enough to contain the Tensor storage of size 65536'].join('\n');
    expect(root(placeholder)).toMatchObject({ kind: 'not-oom', platform: 'mps', catchable: true });
    const ndarray = "/AppleInternal/Library/BuildRoots/x/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:850: failed assertion `[MPSNDArray initWithDevice:descriptor:] Error: buffer is not large enough. Must be 4096 bytes'\nAbort trap: 6";
    expect(root(ndarray)?.platform).toBe('mps');
  });
});

describe("CANN's EL0004 with the resource its trace names", () => {
  const block = (trace: string) => [
    '[rank3]:[E1002 11:04:12.000000001 compiler_depend.ts:429] NPU function error: call aclnnAllGatherMatmul failed, error code is 207001',
    '[ERROR] 2025-10-02-11:04:12 (PID:4242, Device:3, RankID:-1) ERR00100 PTA call acl api failed',
    'EL0004: [PID: 4242] 2025-10-02-11:04:11.000.000 Failed to allocate memory.',
    '        Possible Cause: Available memory is insufficient.',
    '        TraceBack (most recent call last):',
    '        Failed to allocate resource[DeviceMemory] with info [size:1073741824]. Reason: Memory resources are exhausted.',
    trace,
  ].join('\n');

  it("reads HCCL's communication resources in the trace as a collective OOM, with the size, the suffix's device and the rank above", () => {
    const log = block('        Nnopbase fails to invoke the HcclAllocComResourceByTiling function of the hccl module. ret = 2, comm = 0x1.');
    expect(root(log)).toMatchObject({ kind: 'collective-oom', platform: 'npu', catchable: false, requestedBytes: 1073741824, device: 3, rank: 3 });
  });

  it('keeps a catchable OOM when the trace names no HCCL resource', () => {
    expect(root(block('        Check aclrtMalloc failed'))).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 1073741824, device: 3 });
  });
});
