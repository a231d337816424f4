/** HR001: the planned memory per card exceeds (warning) or nears (info) the target device's capacity. */
import { formatBytes } from '../../format';
import { insertAfter, statementOf } from './edits';
import type { Finding, Rule } from './types';

const NEAR_FRACTION = 0.9;

export const rule: Rule = {
  id: 'HR001',
  class: 'plan-over-capacity',
  title: 'Planned memory per card over or near the device capacity',
  docs: 'rules/HR001.md',
  languages: ['python'],
  detect({ plan, facts, text, idx }): Finding[] {
    if (!plan || !facts?.model) return [];
    const capacity = plan.device.capacityBytes;
    const ratio = plan.perCardBytes / capacity;
    if (ratio < NEAR_FRACTION) return [];
    const over = ratio > 1;
    const largest = [...plan.breakdown].sort((a, b) => b.bytes - a.bytes)[0];
    const hfModel = ['from_pretrained', 'from_config', 'ForCausalLM'].some((w) => facts.model!.evidence.includes(w));
    const canCheckpoint = facts.checkpointing?.value !== true && hfModel && facts.modelVariable !== undefined && !facts.inference;
    const suggestion =
      facts.inference
        ? largest?.key === 'kvCache'
          ? 'lower the batch or max_new_tokens, or quantize the KV cache'
          : largest?.key === 'weights'
            ? `load the weights in ${facts.weightDtype?.value === 'bf16' || facts.weightDtype?.value === 'fp16' ? '' : 'bf16, '}8-bit or 4-bit, or split them over GPUs (device_map="auto", tensor parallelism)`
            : 'lower the batch or the sequence length'
        : largest?.key === 'activations' || largest?.key === 'logits'
        ? canCheckpoint ? 'enable gradient checkpointing, or lower the micro-batch/sequence and raise gradient accumulation' : 'lower the micro-batch or sequence length and raise gradient accumulation'
        : largest?.key === 'optimizerStates' || largest?.key === 'masterWeights'
          ? 'shard the optimizer state (ZeRO-1/2, FSDP), use an 8-bit optimizer, or offload it'
          : 'shard the weights (FSDP/ZeRO-3) or add tensor/pipeline parallelism';
    const finding: Finding = {
      rule: 'HR001',
      class: 'plan-over-capacity',
      severity: over ? 'warning' : 'info',
      loc: facts.model.loc,
      message:
        `Planned ${formatBytes(plan.perCardBytes)} per card is ${Math.round(ratio * 100)}% of ${plan.device.name}'s ${formatBytes(capacity)}` +
        `${over ? ': this will run out of memory' : ': little headroom left'}. Largest term: ${largest?.label ?? '?'} (${formatBytes(largest?.bytes ?? 0)}).`,
      fix: suggestion,
      evidence: plan.breakdown.map((it) => `${it.label}: ${formatBytes(it.bytes)} (${it.note})`),
    };
    if (canCheckpoint && idx && (largest?.key === 'activations' || largest?.key === 'logits')) {
      const stmt = statementOf(idx.nodeAt(facts.model.loc));
      finding.codeFix = { title: 'Enable gradient checkpointing', edits: [insertAfter(text, stmt, [`${facts.modelVariable}.gradient_checkpointing_enable()`])] };
    }
    return [finding];
  },
};
