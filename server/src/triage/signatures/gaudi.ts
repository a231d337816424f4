/**
 * Intel Gaudi (HPU): the PyTorch bridge's device-memory module reports
 * "[Rank:0] FATAL ERROR :: MODULE:PT_DEVMEM Allocation failed for size::3288334336 (3136)MB"; bridges
 * before the PT_ prefix (SynapseAI 1.x of 2021-22) print "MODULE:DEVMEM Allocation failed for size::N".
 * Despite "FATAL", it surfaces as a RuntimeError the program can catch. SynapseAI's own failures
 * ("synStatus 26 [Generic failure]") and the bridge's other fatal errors ("MODULE:PT_BRIDGE ...")
 * look alarming too but are not memory failures.
 */
import { formatBytes } from '../../format';
import type { Fix } from '../../protocol';
import { shrinkPeak } from '../fixes';
import { inlineRank } from '../ranks';
import { thrownByTerminate } from './lineContext';
import type { Signature } from './types';

const devmem: Signature = {
  id: 'hpu-devmem-allocation',
  platform: 'gaudi',
  needles: ['DEVMEM Allocation failed', 'SYNHELPER workspace Allocation'],
  match(line) {
    // SynapseAI's graph helper failing to allocate a compiled graph's workspace on the device reads
    // the same way: "FATAL ERROR :: MODULE:SYNHELPER workspace Allocation of size ::14493510400
    // failed!" (HabanaAI/Model-References#10, raised as a RuntimeError from loss.backward()).
    const size = /Allocation failed for size::(\d+)/.exec(line.content) ?? /SYNHELPER workspace Allocation of size ::?\s*(\d+) failed/.exec(line.content);
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

const eagerCheck: Fix = { id: 'hpu-eager-check', title: 'Rerun the failing step in eager mode (PT_HPU_LAZY_MODE=0) to find the op that does not compile', rationale: 'Eager mode runs op by op, so the unsupported one raises on its own.', snippet: 'export PT_HPU_LAZY_MODE=0' };
const versionsMatch: Fix = { id: 'hpu-versions', title: 'Check that the SynapseAI driver and the habana PyTorch bridge are from the same release', rationale: 'Mismatched releases fail graph creation with generic statuses.' };

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
      fixes: [eagerCheck, versionsMatch],
    };
  },
};

/**
 * Any other fatal error of a PyTorch bridge module ("[Rank:0] FATAL ERROR :: MODULE:PT_BRIDGE
 * Exception in Lowering thread...", "MODULE:PT_LAZY Error, ValidateSyncInputTensors ...",
 * "MODULE:PT_DEVICE GRAPH:: Capture must end on the same stream it began on."): not a memory
 * failure. PT_DEVMEM's allocation failure is the one that is (devmem, above).
 */
const bridgeFatal: Signature = {
  id: 'hpu-bridge-fatal',
  platform: 'gaudi',
  needles: ['FATAL ERROR :: MODULE:PT_'],
  match(line) {
    const fatal = /FATAL ERROR :: MODULE:(PT_\w+)\s*(.*)/.exec(line.content);
    if (!fatal || /DEVMEM Allocation failed/.test(line.content)) return undefined;
    const rank = line.rank ?? inlineRank(line.content);
    const message = fatal[2]!.trim();
    return {
      signature: 'hpu-bridge-fatal',
      role: 'failure',
      kind: 'not-oom',
      platform: 'gaudi',
      catchable: !thrownByTerminate(line),
      summary: `Not an OOM: the Gaudi PyTorch bridge failed in ${fatal[1]}${message ? ` (${message})` : ''}`,
      explanation:
        'A module of the Habana PyTorch bridge (lowering, lazy graph building, HPU graph capture) hit a fatal error: an op, shape or usage it does not support, ' +
        'or mismatched software releases. Device memory is not what ran out.',
      ...(rank !== undefined && { rank }),
      numbers: {},
      fixes: [eagerCheck, versionsMatch],
    };
  },
};

export const signatures: readonly Signature[] = [devmem, synapseFailure, bridgeFatal];
