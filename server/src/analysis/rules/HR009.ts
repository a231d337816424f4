/**
 * HR009: problems in PYTORCH_CUDA_ALLOC_CONF (set in code): unknown keys, max_split_size_mb below
 * 20, garbage_collection_threshold outside (0, 1), expandable_segments on ROCm (ignored before
 * PyTorch 2.11 with ROCm 7), options that backend:cudaMallocAsync ignores, and max_split_size_mb
 * combined with expandable_segments.
 */
import type { Located } from '../facts';
import { editDistance, formatAllocConf, isTrue, KNOWN_KEYS, parseAllocConf, type ConfEntry } from './allocConf';
import { linesOf } from './edits';
import type { Finding, Rule, Severity } from './types';

const ASYNC_IGNORES = ['max_split_size_mb', 'roundup_power2_divisions', 'garbage_collection_threshold'];

function literalRange(conf: Located<string>, text: string): Located<string>['loc'] {
  // Replace the literal's contents and keep its quotes (a bare shell word has none).
  const lines = linesOf(text);
  const first = lines[conf.loc.line]?.[conf.loc.character];
  const quoted = first === '"' || first === "'";
  return quoted
    ? { line: conf.loc.line, character: conf.loc.character + 1, endLine: conf.loc.endLine, endCharacter: conf.loc.endCharacter - 1 }
    : conf.loc;
}

export const rule: Rule = {
  id: 'HR009',
  class: 'alloc-conf',
  title: 'PYTORCH_CUDA_ALLOC_CONF problems',
  docs: 'rules/HR009.md',
  languages: ['python', 'bash'],
  detect({ facts, device, text }): Finding[] {
    if (!facts) return [];
    const findings: Finding[] = [];
    for (const conf of facts.allocConf) {
      const entries = parseAllocConf(conf.value);
      const report = (severity: Severity, message: string, fix: string, fixed?: ConfEntry[]): void => {
        findings.push({
          rule: 'HR009',
          class: 'alloc-conf',
          severity,
          loc: conf.loc,
          message,
          fix,
          ...(fixed && { codeFix: { title: `Use "${formatAllocConf(fixed)}"`, edits: [{ range: literalRange(conf, text), newText: formatAllocConf(fixed) }] } }),
          evidence: [`line ${conf.loc.line + 1}: ${conf.evidence}`],
        });
      };
      const get = (key: string): ConfEntry | undefined => entries.find((e) => e.key === key);
      for (const entry of entries) {
        if ((KNOWN_KEYS as readonly string[]).includes(entry.key)) continue;
        const near = [...KNOWN_KEYS].map((k) => ({ k, d: editDistance(entry.key, k) })).sort((a, b) => a.d - b.d)[0];
        const suggestion = near && near.d <= 3 ? near.k : undefined;
        report('error', `Unknown allocator option "${entry.key}": PyTorch rejects the whole setting at the first CUDA allocation ("Unrecognized key").`,
          suggestion ? `Did you mean "${suggestion}"?` : `Remove it; known options: ${KNOWN_KEYS.join(', ')}.`,
          suggestion ? entries.map((e) => (e === entry ? { ...e, key: suggestion } : e)) : entries.filter((e) => e !== entry));
      }
      const split = get('max_split_size_mb');
      if (split && Number(split.value) < 20) {
        report('error', `max_split_size_mb:${split.value} is below the minimum of 20 (PyTorch: "max_split_size_mb too small, must be >= 20").`,
          'Use at least 20, or leave it unset (unlimited).', entries.map((e) => (e === split ? { ...e, value: '20' } : e)));
      }
      const gc = get('garbage_collection_threshold');
      if (gc && !(Number(gc.value) > 0 && Number(gc.value) < 1)) {
        report('error', `garbage_collection_threshold:${gc.value} must be strictly between 0 and 1.`, 'Use a fraction such as 0.8.',
          entries.map((e) => (e === gc ? { ...e, value: '0.8' } : e)));
      }
      const expandable = get('expandable_segments');
      if (expandable && isTrue(expandable.value) && device.platform === 'rocm') {
        report('warning', `expandable_segments on ROCm (${device.name}) needs PyTorch 2.11+ built with ROCm 7.0+; older builds ignore it with "expandable_segments not supported on this platform".`,
          'Check torch.__version__ and torch.version.hip on the target; on older stacks release the cache explicitly instead.');
      }
      const backend = get('backend');
      if (backend?.value === 'cudaMallocAsync') {
        const ignored = entries.filter((e) => ASYNC_IGNORES.includes(e.key));
        if (ignored.length > 0) {
          report('warning', `backend:cudaMallocAsync ignores ${ignored.map((e) => e.key).join(', ')} (PyTorch warns and drops them).`,
            'Remove the options the async backend ignores.', entries.filter((e) => !ignored.includes(e)));
        }
      }
      if (split && expandable && isTrue(expandable.value)) {
        report('warning', 'max_split_size_mb with expandable_segments:True can make reserved memory grow without bound (pytorch/pytorch#123548); expandable segments already avoid the fragmentation max_split_size_mb works around.',
          'Drop max_split_size_mb when expandable segments are on.', entries.filter((e) => e !== split));
      }
    }
    return findings;
  },
};
