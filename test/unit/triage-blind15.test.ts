// The message classes blind batch 15 showed the engine did not know: parents reporting a child's end in
// forms no anchor read (Node's child_process 'exit' event, launchd's stop timeout, a wrapper's capitalized
// exit code), DataLoader's worker signal handler. Each test is a variant written for the class (other
// numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("a parent reporting a child's end", () => {
  it("reads Node's child_process 'exit' event and 'exited with code' as a launcher report (not-oom)", () => {
    expect(root('[lint] spawn flake8\n[lint] exit with code 2, signal null')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('2024-05-01 10:00:00 worker-3 exited with code: 17')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
    // Exit code 0 is no failure.
    expect(all('[fmt] exit with code 0, signal null')).toEqual([]);
  });

  it("reads launchd's SIGKILL after a stop timeout as not-oom, not a memory kill", () => {
    const log = [
      '09:14:02.100 signaled service: Terminated: 15',
      '09:14:02.100 scheduling cleanup in 20 sec after sending Terminated: 15',
      '09:14:22.104 Service did not exit 20 seconds after SIGTERM. Sending SIGKILL.',
      '09:14:22.390 exited due to SIGKILL | ran for 4410ms',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("reads a wrapper's capitalized 'Exit code -9' as a host kill", () => {
    expect(root('assembler step "kmer_count" failed\n(Exit code -9)')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });
});

describe("DataLoader's worker signal handler", () => {
  it("reads 'Unexpected segmentation fault / floating-point exception encountered in worker' as a native crash", () => {
    expect(root('epoch 3:  12%|#2        | 48/400\nERROR: Unexpected segmentation fault encountered in worker.')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('ERROR: Unexpected floating-point exception encountered in worker.')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe("the HSA runtime's queue-callback abort", () => {
  it('reads a fault status other than OUT_OF_RESOURCES as not-oom, not a runtime-abort for memory', () => {
    const fault = ':1:rocdevice.cpp            :2690: 1234567890 us: 4242 : [tid:0x7f00aa000700] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an illegal shader instruction. code: 0x2a\nAborted (core dumped)';
    expect(root(fault)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    // Out of resources stays the memory abort.
    const oom = ':0:rocdevice.cpp            :2660: 98765 us: 77 : [tid:0x7f11bb000700] Device::callbackQueue aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. code: 0x1008';
    expect(root(oom)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm' });
  });
});

describe("Level Zero's own names", () => {
  it('name the xpu platform for the fallbacks', () => {
    const log = "$ ./bench_copy --iters 10\nterminate called after throwing an instance of 'std::runtime_error'\n  what():  zeCommandListAppendMemoryCopy( hCmdList, dst, src, size, nullptr, 0, nullptr ) returned ZE_RESULT_ERROR_INVALID_ARGUMENT\nAborted (core dumped)";
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: false });
    expect(root("terminate called after throwing an instance of 'std::runtime_error'\n  what():  unexpected ze_result_t 0x70000004")).toMatchObject({ kind: 'not-oom', platform: 'xpu' });
  });
});

describe("CANN's HCCL EI0011 (Resource_Error_Insufficient_Device_Memory)", () => {
  it('reads it as a catchable OOM on the NPU, with the size when it is one number', () => {
    const log = [
      '[PID: 31337] 2025-02-14-09:30:11.123.456 Resource_Error_Insufficient_Device_Memory(EI0011): Failed to allocate [size:2147483648] bytes of NPU memory.',
      '        Possible Cause: Allocation failure due to insufficient NPU memory.',
      '        Solution: Stop unnecessary processes and ensure the required memory is available.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'npu', catchable: true, requestedBytes: 2147483648 });
    // A range gives no request.
    const range = root('EI0011: Failed to allocate [size: [0.5MB, 4MB], Affected by QP depth configuration.] bytes of NPU memory.');
    expect(range).toMatchObject({ kind: 'catchable-oom', platform: 'npu' });
    expect(range?.requestedBytes).toBeUndefined();
  });

  it("takes the frames of the traceback below it through a logger's prefix", () => {
    const log = [
      'ERROR 11-02 17:45:09 [model_runner.py:88]         Failed to allocate [size:65536000] bytes of NPU memory.',
      'ERROR 11-02 17:45:09 [model_runner.py:88] Traceback (most recent call last):',
      'ERROR 11-02 17:45:09 [model_runner.py:88]   File "/srv/app/serve/runner.py", line 120, in step',
      'ERROR 11-02 17:45:09 [model_runner.py:88]     out = self.model(batch)',
      'ERROR 11-02 17:45:09 [model_runner.py:88]           ^^^^^^^^^^^^^^^^^',
      'ERROR 11-02 17:45:09 [model_runner.py:88]   File "/srv/app/serve/model.py", line 57, in forward',
      'ERROR 11-02 17:45:09 [model_runner.py:88]     return self.attn(x)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 65536000 });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/srv/app/serve/model.py', line: 57 });
  });
});

describe("Vulkan's out-of-memory results", () => {
  it("reads VK_ERROR_OUT_OF_DEVICE_MEMORY and Vulkan-Hpp's ErrorOutOfDeviceMemory as a catchable OOM", () => {
    expect(root('[renderer] frame 12 failed\nterminating frame: vk::Device::allocateMemory: ErrorOutOfDeviceMemory')).toMatchObject({ kind: 'catchable-oom', catchable: true });
    expect(root('vkAllocateMemory returned VK_ERROR_OUT_OF_DEVICE_MEMORY (-2) for a 805306368-byte image')).toMatchObject({ kind: 'catchable-oom' });
    // The host variant is host memory.
    expect(root('vkCreateDevice failed: VK_ERROR_OUT_OF_HOST_MEMORY')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    // A validation warning that mentions it is not a failure.
    expect(all('WARNING: retrying after VK_ERROR_OUT_OF_DEVICE_MEMORY with a smaller heap')).toEqual([]);
  });
});

describe("frames of code given with 'python -c'", () => {
  it("take <string>'s <module> frame as the user's, not a generated <string> function", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "<string>", line 3, in <module>',
      '  File "/opt/conda/lib/python3.11/site-packages/mylib/io.py", line 88, in load',
      '    return Record(**row)',
      '  File "<string>", line 4, in __init__',
      'ValueError: negative size',
    ].join('\n');
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '<string>', line: 3, function: '<module>' });
  });
});

describe('torch.OutOfMemoryError whose message names the backend', () => {
  it('takes the platform from the word before "out of memory" and the request from the next line', () => {
    expect(root('torch.OutOfMemoryError: XPU out of memory.\nTried to allocate 3.50 GiB.')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', requestedBytes: Math.round(3.5 * 2 ** 30) });
    expect(root('torch.OutOfMemoryError: NPU out of memory.')).toMatchObject({ kind: 'catchable-oom', platform: 'npu' });
    // The module still decides when the message names nothing.
    expect(root('torch.cuda.OutOfMemoryError: see the log above')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });
});

describe("Tenstorrent tt-metal's bank allocator", () => {
  it('reads its Out of Memory as a catchable OOM with the exact request', () => {
    const log = 'RuntimeError: TT_THROW @ tt_metal/impl/allocator/bank_manager.cpp:141: tt::exception\ninfo:\nOut of Memory: Not enough space to allocate 2097152 B L1 buffer across 64 banks, where each bank needs to store 32768 B';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true, requestedBytes: 2097152 });
  });
});
