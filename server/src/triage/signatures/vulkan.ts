/**
 * Vulkan's device memory allocations failing, as programs print them.
 *
 * A failed vkAllocateMemory reported by the call's name and its VkResult as a number (the Vulkan specification's
 * vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY = -2, VK_ERROR_OUT_OF_HOST_MEMORY = -1; "vkAllocateMemory failed -2",
 * "Failure in vkAllocateMemory at 191 src/mvulkan.cpp ErrCode=-2"), which the Vulkan-Hpp names and VK_ERROR_ constants of
 * tailAllocFailure's Vulkan class do not cover. Returned to the program: catchable-oom, on the platform the lines around
 * name for device memory (Vulkan names no vendor), host memory for -1. Its other results (an invalid external handle,
 * too many objects) are not memory running out and are left.
 */
import { formatBytes } from '../../format';
import { hostMemory, shrinkPeak } from '../fixes';
import { endsProcessAfter } from './lineContext';
import { platformNear } from './otherOom';
import type { Signature } from './types';

const VK_ALLOCATE_FAILED = /\bvkAllocateMemory\b.*?\b(?:fail(?:ed|ure)?|error|returned)\b|\b(?:fail(?:ed|ure)?|error)\b.*?\bvkAllocateMemory\b/i;
const RESULT = /(?:=|:|\s|\()(-[12])(?![\d.])|\bVK_ERROR_OUT_OF_(DEVICE|HOST)_MEMORY\b/;

const allocateMemory: Signature = {
  id: 'vulkan-allocate-memory',
  platform: 'cpu',
  needles: ['vkAllocateMemory'],
  match(line) {
    const text = line.content;
    if (!VK_ALLOCATE_FAILED.test(text) || /warn/i.test(text)) return undefined;
    const r = RESULT.exec(text.slice(text.indexOf('vkAllocateMemory')));
    if (!r) return undefined;
    const host = r[1] === '-1' || r[2] === 'HOST';
    const platform = host ? 'cpu' : platformNear(line);
    // The program treated the failed call as fatal: the process ended right under it (a crash handler's "Signal 11 caught.").
    const crashed = endsProcessAfter(line, 3);
    return {
      signature: 'vulkan-allocate-memory',
      role: 'failure',
      kind: crashed ? 'runtime-abort' : 'catchable-oom',
      platform,
      catchable: !crashed,
      summary: (crashed ? 'Process crashed: ' : '') + (host ? 'Host out of memory: vkAllocateMemory returned VK_ERROR_OUT_OF_HOST_MEMORY (-1)' : `Out of memory: vkAllocateMemory returned VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)${platform === 'cpu' ? '' : ` on ${platform}`}`),
      explanation: host
        ? 'The Vulkan driver could not allocate the host memory it needed for a device memory allocation and returned -1 (VK_ERROR_OUT_OF_HOST_MEMORY) to the program.'
        : crashed
          ? 'The Vulkan driver had no device memory left in the requested heap and returned -2 (VK_ERROR_OUT_OF_DEVICE_MEMORY); the program treated it as fatal and the process died on it.'
          : 'The Vulkan driver had no device memory left in the requested heap and returned -2 (VK_ERROR_OUT_OF_DEVICE_MEMORY) from vkAllocateMemory to the program, which could have handled it (a smaller allocation, another memory type).',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: host ? [hostMemory] : [shrinkPeak('the buffers and images the program allocates (resolution, tile size, batch)')],
    };
  },
};

/**
 * ggml's Vulkan backend logging a device allocation it could not get (ggml-vulkan.cpp ggml_vk_create_buffer: "ggml_vulkan: Device
 * memory allocation of size N failed.", then the vk::OutOfDeviceMemoryError's "ggml_vulkan: vk::Device::allocateMemory:
 * ErrorOutOfDeviceMemory"): the exception goes back to the caller (the buffer allocation fails), a catchable-oom with the
 * request. Read in the streaming scan, so it is the log's failure even when a crash on the error path follows it (a double
 * free while freeing the half-built buffers), which the tail pass would otherwise take as the last failure.
 */
const GGML_VULKAN_ALLOC = /\bggml_vulkan: Device memory allocation of size (\d+) failed\b/;

const ggmlVulkanAlloc: Signature = {
  id: 'ggml-vulkan-alloc',
  platform: 'cpu',
  needles: ['Device memory allocation of size'],
  match(line) {
    const m = GGML_VULKAN_ALLOC.exec(line.content);
    if (!m) return undefined;
    const requested = Number(m[1]);
    const platform = platformNear(line);
    return {
      signature: 'ggml-vulkan-alloc',
      role: 'failure',
      kind: 'catchable-oom',
      platform,
      catchable: true,
      summary: `Out of memory: ggml's Vulkan backend could not allocate ${formatBytes(requested)} of device memory${platform === 'cpu' ? '' : ` on ${platform}`}`,
      explanation: 'The Vulkan driver refused a device memory allocation for a ggml buffer (weights, KV cache or compute buffer) with VK_ERROR_OUT_OF_DEVICE_MEMORY; ggml throws it back to the code that asked for the buffer.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: requested },
      fixes: [{ id: 'ggml-fewer-layers', title: 'Offload fewer layers (-ngl), shrink the context (-c) or the micro-batch (-ub), or quantize the KV cache', rationale: 'The weights, the KV cache and the compute buffers all live in device memory.' }],
      ...(/ErrorOutOfDeviceMemory/.test(line.next(1) ?? '') && { extraLines: [1] }),
    };
  },
};

export const signatures: readonly Signature[] = [allocateMemory, ggmlVulkanAlloc];
