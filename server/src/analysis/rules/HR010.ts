/**
 * HR010: garbage_collection_threshold without a per-process memory fraction does nothing. The
 * caching allocator only runs its garbage collection when set_per_process_memory_fraction has been
 * called (CUDACachingAllocator.cpp: `if (set_fraction && garbage_collection_threshold > 0)`).
 */
import { afterImportsLine, insertAfter, statementOf } from './edits';
import { parseAllocConf } from './allocConf';
import type { Finding, Rule } from './types';

export const rule: Rule = {
  id: 'HR010',
  class: 'gc-threshold-without-fraction',
  title: 'garbage_collection_threshold without a memory fraction',
  docs: 'rules/HR010.md',
  languages: ['python', 'bash'],
  detect({ facts, idx, text }): Finding[] {
    if (!facts || facts.memoryFraction) return [];
    const findings: Finding[] = [];
    for (const conf of facts.allocConf) {
      if (!parseAllocConf(conf.value).some((e) => e.key === 'garbage_collection_threshold')) continue;
      const finding: Finding = {
        rule: 'HR010',
        class: 'gc-threshold-without-fraction',
        severity: 'warning',
        loc: conf.loc,
        message: 'garbage_collection_threshold has no effect unless torch.cuda.set_per_process_memory_fraction() is called: the allocator only collects when a fraction is set.',
        fix: 'Call torch.cuda.set_per_process_memory_fraction(1.0) after setting the variable (1.0 enables collection without capping memory).',
        evidence: [`line ${conf.loc.line + 1}: ${conf.evidence}`, idx ? 'no set_per_process_memory_fraction call in the file' : 'no set_per_process_memory_fraction call in the scripts it starts'],
      };
      if (idx) {
        // After both the imports and the statement that sets the variable, so CUDA initializes with the setting.
        const stmt = statementOf(idx.nodeAt(conf.loc));
        const line = Math.max(afterImportsLine(idx.root), stmt.endPosition.row + 1);
        const call = 'torch.cuda.set_per_process_memory_fraction(1.0)  # makes garbage_collection_threshold take effect';
        const edit = stmt.parent?.type === 'module'
          ? { range: { line, character: 0, endLine: line, endCharacter: 0 }, newText: `${idx.aliases.has('torch') ? '' : 'import torch\n'}${call}\n` }
          : insertAfter(text, stmt, [call]);
        finding.codeFix = { title: 'Enable garbage collection with set_per_process_memory_fraction(1.0)', edits: [edit] };
      }
      findings.push(finding);
    }
    return findings;
  },
};
