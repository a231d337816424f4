/**
 * Intel Gaudi (HPU): the PyTorch bridge's device-memory module reports
 * "[Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::3288334336 (3136)MB".
 * Despite "FATAL", it surfaces as a RuntimeError the program can catch. SynapseAI's own failures
 * ("synStatus 26 [Generic failure]") look alarming too but are not memory failures.
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

/** Graph compilation or execution failing inside SynapseAI: "synNodeCreateWithId failed ... synStatus 26 [Generic failure]". */
const synapseFailure: Signature = {
  id: 'hpu-synapse-failure',
  platform: 'gaudi',
  needles: ['synStatus'],
  match(line) {
    const status = /synStatus[ =](\d+) \[([^\]]+)\]/.exec(line.content);
    if (!status) return undefined;
    const rank = line.rank ?? inlineRank(line.content);
    return {
      signature: 'hpu-synapse-failure',
      role: 'failure',
      kind: 'not-oom',
      platform: 'gaudi',
      catchable: true,
      summary: `Not an OOM: SynapseAI failed (synStatus ${status[1]}, ${status[2]})`,
      explanation:
        'The Gaudi graph compiler or runtime rejected an operation. A generic failure here usually means an unsupported op, shape or dtype in the ' +
        'compiled graph (or a driver/software version mismatch), not a lack of device memory.',
      ...(rank !== undefined && { rank }),
      numbers: {},
      fixes: [
        { id: 'hpu-eager-check', title: 'Rerun the failing step in eager mode (PT_HPU_LAZY_MODE=0) to find the op that does not compile', rationale: 'Eager mode runs op by op, so the unsupported one raises on its own.', snippet: 'export PT_HPU_LAZY_MODE=0' },
        { id: 'hpu-versions', title: 'Check that the SynapseAI driver and the habana PyTorch bridge are from the same release', rationale: 'Mismatched releases fail graph creation with generic statuses.' },
      ],
    };
  },
};

export const signatures: readonly Signature[] = [devmem, synapseFailure];
