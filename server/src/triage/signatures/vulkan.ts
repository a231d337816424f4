/**
 * A failed vkAllocateMemory reported by the call's name and its VkResult as a number (the Vulkan specification's
 * vkAllocateMemory: VK_ERROR_OUT_OF_DEVICE_MEMORY = -2, VK_ERROR_OUT_OF_HOST_MEMORY = -1; "vkAllocateMemory failed -2",
 * "Failure in vkAllocateMemory at 191 src/mvulkan.cpp ErrCode=-2"), which the Vulkan-Hpp names and VK_ERROR_ constants of
 * tailAllocFailure's Vulkan class do not cover. Returned to the program: catchable-oom, on the platform the lines around
 * name for device memory (Vulkan names no vendor), host memory for -1. Its other results (an invalid external handle,
 * too many objects) are not memory running out and are left.
 */
import { hostMemory, shrinkPeak } from '../fixes';
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
    return {
      signature: 'vulkan-allocate-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform,
      catchable: true,
      summary: host ? 'Host out of memory: vkAllocateMemory returned VK_ERROR_OUT_OF_HOST_MEMORY (-1)' : `Out of memory: vkAllocateMemory returned VK_ERROR_OUT_OF_DEVICE_MEMORY (-2)${platform === 'cpu' ? '' : ` on ${platform}`}`,
      explanation: host
        ? 'The Vulkan driver could not allocate the host memory it needed for a device memory allocation and returned -1 (VK_ERROR_OUT_OF_HOST_MEMORY) to the program.'
        : 'The Vulkan driver had no device memory left in the requested heap and returned -2 (VK_ERROR_OUT_OF_DEVICE_MEMORY) from vkAllocateMemory to the program, which could have handled it (a smaller allocation, another memory type).',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: host ? [hostMemory] : [shrinkPeak('the buffers and images the program allocates (resolution, tile size, batch)')],
    };
  },
};

export const signatures: readonly Signature[] = [allocateMemory];
