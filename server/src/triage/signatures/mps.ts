/**
 * Apple MPS: "MPS backend out of memory (MPS allocated: X, other allocations: Y, max allowed: Z).
 * Tried to allocate W on private pool." The allocator caps itself at a high watermark of the
 * unified memory (PYTORCH_MPS_HIGH_WATERMARK_RATIO); sizes are binary even when labelled GB.
 */
import { formatBytes } from '../../format';
import { shrinkPeak } from '../fixes';
import { SIZE, toBytes } from '../sizes';
import type { Signature } from './types';

const MESSAGE = new RegExp(
  String.raw`MPS backend out of memory \(MPS allocated: ${SIZE}, other allocations: ${SIZE}, max allowed: ${SIZE}\)\. Tried to allocate ${SIZE}`,
);

const backendOom: Signature = {
  id: 'mps-out-of-memory',
  platform: 'mps',
  needles: ['MPS backend out of memory'],
  match(line) {
    const m = MESSAGE.exec(line.content);
    if (!m) return undefined;
    const allocated = toBytes(m[1]!, m[2]!);
    const other = toBytes(m[3]!, m[4]!) ?? 0;
    const allowed = toBytes(m[5]!, m[6]!);
    const requested = toBytes(m[7]!, m[8]!);
    const othersDominate = allocated !== undefined && other > allocated;
    return {
      signature: 'mps-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'mps',
      catchable: true,
      summary: `MPS out of memory: ${formatBytes(requested ?? 0)} requested, ${formatBytes(allocated ?? 0)} allocated of ${formatBytes(allowed ?? 0)} allowed`,
      explanation:
        `PyTorch's MPS allocator held ${formatBytes(allocated ?? 0)} and other allocations (the Metal heap, other processes' share of unified memory) ` +
        `${formatBytes(other)}, against a cap of ${formatBytes(allowed ?? 0)}. The cap protects the system from swapping to a halt.`,
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: {
        ...(requested !== undefined && { requestedBytes: requested }),
        ...(allocated !== undefined && { allocatedBytes: allocated }),
        ...(allowed !== undefined && { allowedBytes: allowed }),
      },
      fixes: [
        ...(othersDominate ? [{ id: 'mps-other-allocations', title: 'Close other GPU-heavy apps, or call torch.mps.empty_cache() between stages', rationale: `Other allocations (${formatBytes(other)}) exceed PyTorch's own (${formatBytes(allocated ?? 0)}).`, snippet: 'torch.mps.empty_cache()' }] : []),
        shrinkPeak(),
        { id: 'mps-watermark', title: 'Last resort: raise PYTORCH_MPS_HIGH_WATERMARK_RATIO (0.0 removes the cap and can freeze the machine)', rationale: 'The cap is a share of unified memory; above it macOS starts swapping.', snippet: 'export PYTORCH_MPS_HIGH_WATERMARK_RATIO=1.0' },
      ],
    };
  },
};

export const signatures: readonly Signature[] = [backendOom];
