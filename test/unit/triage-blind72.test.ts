// The message classes blind batch 72 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("the shell's Killed around a progress bar", () => {
  it('reads Killed right after the blocks of a bar cut at the width', () => {
    const log = ['tokenizing shards:  43%|██████████████████Killed'];
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });

  it("reads Killed written over the start of the bar's line", () => {
    const log = ['Killed:  12%|█▎         | 120/1000 [01:02<07:40,  1.91it/s]'];
    expect(root(log)).toMatchObject({ kind: 'host-oom' });
  });

  it('does not read a percentage without a bar after a word as a kill', () => {
    const log = ['Processes Killed: 3 of 10 (30%)'];
    expect(root(log)?.kind).not.toBe('host-oom');
  });
});

describe("OpenVINO's GPU plugin over the device's largest allocation", () => {
  it('reads the request and the limit as a refused allocation on the Intel GPU', () => {
    const log = [
      'RuntimeError: Exception from src/inference/src/cpp/infer_request.cpp:223:',
      "Check '!exceed_allocatable_mem_size' failed at src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp:142:",
      '[GPU] Exceeded max size of memory object allocation: requested 6442450944 bytes, but max alloc size supported by device is 4294959104 bytes.Please try to reduce batch size or use lower precision.',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', requestedBytes: 6442450944, allowedBytes: 4294959104 });
  });
});

describe("Paddle's host allocator", () => {
  it("reads 'Fail to alloc memory of N size' as host memory with the request", () => {
    const log = ['ResourceExhaustedError: Fail to alloc memory of 1073741824 size, error code is 12.', '  [Hint: Expected error == 0, but received error:12 != 0:0.] (at /paddle/paddle/fluid/memory/detail/system_allocator.cc:66)'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 1073741824 });
  });
});

describe("VS Code's debugger stopping on a MemoryError", () => {
  it("reads 'Exception has occurred: MemoryError' as a host OOM", () => {
    const log = ['Exception has occurred: MemoryError', 'Unable to allocate 12.0 GiB for an array with shape (40000, 40000) and data type float64'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });
});

describe('a Vulkan OOM the process crashed on', () => {
  it("reads the crash handler's signal under it as an abort", () => {
    const log = ['VulkanRHI::vkAllocateMemory(Device, &Info, nullptr, &Handle) failed, VkResult=-2', 'with error VK_ERROR_OUT_OF_DEVICE_MEMORY', 'Signal 11 caught.'];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });

  it('keeps a Vulkan OOM the program went on from catchable', () => {
    const log = ['vk::Device::allocateMemory: ErrorOutOfDeviceMemory', 'falling back to host-visible memory'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });
});
