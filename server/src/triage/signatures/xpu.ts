/**
 * Intel XPU (torch.xpu and the older intel-extension-for-pytorch): the caching-allocator message
 * ("XPU out of memory. Tried to allocate ... GPU 0 has a total capacity of ...", sometimes without
 * "of which ... is free") and the Level Zero single-allocation limit ("Current platform can NOT
 * allocate memory block with size larger than 4GB!").
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

export const signatures: readonly Signature[] = [cachingAllocator, tensorflowXpu];
