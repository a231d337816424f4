/**
 * Intel XPU (torch.xpu and the older intel-extension-for-pytorch): the caching-allocator message
 * ("XPU out of memory. Tried to allocate ... GPU 0 has a total capacity of ...", sometimes without
 * "of which ... is free") and the Level Zero single-allocation limit ("Current platform can NOT
 * allocate memory block with size larger than 4GB!"); TensorFlow on XPU (ITEX); and two errors that
 * are not OOMs: mem_get_info failing on drivers that do not report free memory, and a lost device.
 */
import { formatBytes } from '../../format';
import type { Fix } from '../../protocol';
import { allocatorFinding, parseAllocatorMessage, type AllocatorPlatform } from './allocatorMessage';
import { parseTensorflowOom, tensorflowFinding } from './tensorflowMessage';
import type { Signature } from './types';

const XPU: AllocatorPlatform = {
  signature: 'xpu-caching-allocator',
  platform: 'xpu',
  label: 'XPU',
  allocConfVar: 'PYTORCH_XPU_ALLOC_CONF',
  expandableSegments: { supported: false },
};

const FOUR_GIB = 4 * 1024 ** 3;

const relaxedLimit = (requested: number): Fix => ({
  id: 'xpu-4gb-limit',
  title: 'Keep single tensors under 4 GiB on this driver, or allow larger blocks where supported (UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1)',
  rationale: `Level Zero caps one allocation at 4 GiB by default; ${formatBytes(requested)} was asked for in one block.`,
  snippet: 'export UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1',
});

const cachingAllocator: Signature = {
  id: XPU.signature,
  platform: 'xpu',
  needles: ['XPU out of memory', 'Current platform can NOT allocate'],
  match(line) {
    const msg = parseAllocatorMessage(line.content);
    const limit = line.content.includes('Current platform can NOT allocate');
    if (!msg || (msg.api !== 'XPU' && !limit)) return undefined;
    const finding = allocatorFinding(msg, XPU, line.rank);
    const requested = msg.numbers.requestedBytes ?? 0;
    if (limit) {
      finding.summary = `XPU cannot allocate a single block of ${formatBytes(requested)} (over the 4 GiB limit)`;
      finding.explanation = `The driver refuses any one allocation above 4 GiB, whatever is free. ${finding.explanation}`;
    }
    if (limit || requested > FOUR_GIB) finding.fixes.unshift(relaxedLimit(requested));
    finding.fixes.push({ id: 'xpu-empty-cache', title: 'Release unused cached blocks: torch.xpu.empty_cache()', rationale: 'The XPU allocator has no expandable segments; releasing the cache is its only defragmentation.', snippet: 'torch.xpu.empty_cache()' });
    return finding;
  },
};

/**
 * torch.xpu.mem_get_info() on a driver that does not report free memory (c10/xpu: "The device
 * (Intel(R) Arc(TM) Graphics) doesn't support querying the available free memory."). Libraries that
 * size their caches from free memory (ComfyUI, transformers' allocator warm-up) fail on it.
 */
const memGetInfoUnsupported: Signature = {
  id: 'xpu-mem-get-info-unsupported',
  platform: 'xpu',
  needles: ["doesn't support querying the available free memory"],
  match(line) {
    const device = /The device \((.*?)\) doesn't support/.exec(line.content)?.[1];
    return {
      signature: 'xpu-mem-get-info-unsupported',
      role: 'failure',
      kind: 'not-oom',
      platform: 'xpu',
      catchable: true,
      summary: `Not an OOM: ${device ?? 'the XPU'} cannot report its free memory (torch.xpu.mem_get_info)`,
      explanation:
        'The Level Zero driver only reports free device memory when its system-management interface is enabled; without it PyTorch raises instead of guessing. ' +
        'Nothing ran out of memory.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        { id: 'xpu-sysman', title: 'Enable the driver\'s memory reporting: ZES_ENABLE_SYSMAN=1 before starting Python', rationale: 'Level Zero answers free-memory queries only with Sysman enabled.', snippet: 'export ZES_ENABLE_SYSMAN=1' },
        { id: 'xpu-mem-get-info-fallback', title: 'Or catch the RuntimeError and estimate free memory from the device total minus torch.xpu.memory_reserved()', rationale: 'The total is always known; only the driver\'s free figure is missing.', snippet: 'total = torch.xpu.get_device_properties(device).total_memory\nfree = total - torch.xpu.memory_reserved(device)' },
      ],
    };
  },
};

/** TensorFlow on an Intel GPU through intel-extension-for-tensorflow, which names the device XPU. */
const tensorflowXpu: Signature = {
  id: 'tensorflow-oom-xpu',
  platform: 'xpu',
  needles: ['OOM when allocating tensor'],
  match(line) {
    const msg = parseTensorflowOom(line);
    if (msg?.deviceType !== 'XPU') return undefined;
    return tensorflowFinding(msg, 'xpu', 'XPU', line, []);
  },
};

/**
 * The GPU was lost (a hang the driver reset, a page fault, a firmware crash): "RuntimeError:
 * level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)" from the Unified Runtime,
 * PI_ERROR_DEVICE_LOST from the older SYCL plugin interface, ZE_RESULT_ERROR_DEVICE_LOST from Level
 * Zero itself. Raised as a RuntimeError, but the device stays lost, so every later call fails too.
 */
const deviceLost: Signature = {
  id: 'xpu-device-lost',
  platform: 'xpu',
  needles: ['ERROR_DEVICE_LOST'],
  match(line) {
    const status = /\b(?:UR_RESULT|PI|ZE_RESULT)_ERROR_DEVICE_LOST\b/.exec(line.content);
    if (!status) return undefined;
    return {
      signature: 'xpu-device-lost',
      role: 'failure',
      kind: 'not-oom',
      platform: 'xpu',
      catchable: false,
      summary: `Not an OOM: the Intel GPU was lost (${status[0]})`,
      explanation:
        'The driver reset or lost the device: a kernel that hung or faulted, a firmware or driver problem. Device memory is not what ran out, ' +
        'and the process cannot use the device again.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {},
      fixes: [
        { id: 'xpu-device-lost-debug', title: 'Check the kernel log (dmesg) for the GPU reset, update the GPU driver, and rerun the failing op alone to find it', rationale: 'A lost device is a driver-level event; the reset message names the engine that hung.' },
      ],
    };
  },
};

export const signatures: readonly Signature[] = [cachingAllocator, memGetInfoUnsupported, tensorflowXpu, deviceLost];
