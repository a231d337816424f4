/**
 * HR004 (seed 003, CUDA analogue): `torch.cuda.graph` captures in the default global capture-error
 * mode while worker threads allocate. During a global-mode capture any other thread's
 * potentially-unsafe CUDA call fails ("operation not permitted when stream is capturing"); measured
 * on an H200: 114 of 254,459 allocations failed in 3 s, none with `capture_error_mode="thread_local"`.
 */
import type { Finding, Rule } from './types';

export const rule: Rule = {
  id: 'HR004',
  class: 'global-state-race',
  title: 'CUDA graph capture in global mode while worker threads allocate',
  docs: 'rules/HR004.md',
  languages: ['python'],
  detect({ idx, facts }): Finding[] {
    if (!idx || !facts || facts.threadTargets.length === 0) return [];
    const findings: Finding[] = [];
    for (const capture of facts.graphCaptures) {
      if (capture.value.threadLocal) continue;
      const args = idx.nodeAt(capture.loc).childForFieldName('arguments');
      const last = args?.namedChildren.filter((c) => c !== null).pop();
      findings.push({
        rule: 'HR004',
        class: 'global-state-race',
        severity: 'warning',
        loc: capture.loc,
        message:
          'This CUDA graph capture uses the default global capture-error mode while worker threads run ' +
          `(${facts.threadTargets.map((t) => t.value).join(', ')}); their allocations can fail with "operation not permitted when stream is capturing".`,
        fix: 'Capture with capture_error_mode="thread_local" (or hold one lock around captures and allocations).',
        ...(last && {
          codeFix: {
            title: 'Capture with capture_error_mode="thread_local"',
            edits: [{ range: { line: last.endPosition.row, character: last.endPosition.column, endLine: last.endPosition.row, endCharacter: last.endPosition.column }, newText: ', capture_error_mode="thread_local"' }],
          },
        }),
        evidence: [`capture line ${capture.loc.line + 1}: ${capture.evidence}`, ...facts.threadTargets.map((t) => `thread target line ${t.loc.line + 1}: ${t.evidence}`)],
      });
    }
    return findings;
  },
};
