/**
 * Intel Gaudi (HPU): the PyTorch bridge's device-memory module reports
 * "[Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::3288334336 (3136)MB".
 * Despite "FATAL", it surfaces as a RuntimeError the program can catch.
 */
import { formatBytes } from '../../format';
import { shrinkPeak } from '../fixes';
import { inlineRank } from '../ranks';
import type { Signature } from './types';

const devmem: Signature = {
  id: 'hpu-devmem-allocation',
  platform: 'gaudi',
  needles: ['PT_DEVMEM Allocation failed'],
  match(line) {
    const size = /Allocation failed for size::(\d+)/.exec(line.content);
    if (!size) return undefined;
    const requested = Number(size[1]);
    const rank = line.rank ?? inlineRank(line.content);
    return {
      signature: 'hpu-devmem-allocation',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'gaudi',
      catchable: true,
      summary: `Gaudi HPU out of memory: ${formatBytes(requested)} could not be allocated`,
      explanation:
        'The HPU device-memory pool had no block for the request. Graph mode keeps the graph\'s intermediate buffers and cached recipes on the device, ' +
        'so peak usage can exceed what eager execution would need.',
      ...(rank !== undefined && { rank }),
      numbers: { requestedBytes: requested },
      fixes: [
        shrinkPeak(),
        { id: 'hpu-shard', title: 'Shard the model instead of replicating it (DeepSpeed ZeRO-3 / tensor parallel over the HPUs)', rationale: 'A model loaded whole onto each card needs its full size per card before sharding.' },
      ],
    };
  },
};

export const signatures: readonly Signature[] = [devmem];
