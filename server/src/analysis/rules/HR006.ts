/**
 * HR006 (seed 004): a failed cudaMalloc/ncclMemAlloc leaves the CUDA runtime's last error set;
 * the next runtime call on that rank inherits it and fails, so a CHECK macro throws and the rank
 * leaves before the collective the other ranks wait in. Drain it with cudaGetLastError() on the
 * failure path.
 */
import { locOf } from '../pyindex';
import { ALLOCATIONS, DRAIN, functionCalls, isRuntimeCall, resultIsKept } from './cpp';
import { indentOf, insertAfter, statementOf } from './edits';
import type { Finding, Rule, TextEdit } from './types';

const DRAIN_LINE = '(void)cudaGetLastError();  // drain the error a failed allocation leaves behind';

export const rule: Rule = {
  id: 'HR006',
  class: 'sticky-error',
  title: 'CUDA calls after a failed allocation without draining the sticky error',
  docs: 'rules/HR006.md',
  languages: ['cpp'],
  detect({ tree, text }): Finding[] {
    const findings: Finding[] = [];
    for (const { calls } of functionCalls(tree)) {
      calls.forEach((alloc, i) => {
        if (!ALLOCATIONS.has(alloc.name) || !resultIsKept(alloc.node)) return;
        const later = calls.slice(i + 1).filter((c) => !(c.node.startIndex >= alloc.node.startIndex && c.node.endIndex <= alloc.node.endIndex));
        const drainAt = later.findIndex((c) => DRAIN.has(c.name));
        const next = later.find((c, k) => isRuntimeCall(c.name) && (drainAt < 0 || k < drainAt));
        if (!next) return;
        const stmt = statementOf(alloc.node);
        let edit: TextEdit;
        const consequence = stmt.type === 'if_statement' ? stmt.childForFieldName('consequence') : null;
        if (consequence?.type === 'compound_statement') {
          const firstInner = consequence.namedChildren.find((c) => c !== null);
          const indent = firstInner ? indentOf(text, firstInner.startPosition.row) : indentOf(text, stmt.startPosition.row) + '    ';
          const line = consequence.startPosition.row + 1;
          edit = { range: { line, character: 0, endLine: line, endCharacter: 0 }, newText: `${indent}${DRAIN_LINE}\n` };
        } else {
          edit = insertAfter(text, stmt, [DRAIN_LINE]);
        }
        findings.push({
          rule: 'HR006',
          class: 'sticky-error',
          severity: 'warning',
          loc: locOf(alloc.node),
          message:
            `If ${alloc.name} fails, the runtime's last error stays set and ${next.name} (line ${next.node.startPosition.row + 1}) inherits it; ` +
            'a CHECK there throws and this rank leaves the collective path while the others wait (seed 004).',
          fix: 'Call cudaGetLastError() on the failure path before any other CUDA/NCCL call.',
          codeFix: { title: 'Drain the sticky error after the allocation', edits: [edit] },
          evidence: [`allocation line ${alloc.node.startPosition.row + 1}: ${alloc.node.text.split('\n')[0]}`, `next runtime call line ${next.node.startPosition.row + 1}: ${next.node.text.split('\n')[0]}`],
        });
      });
    }
    return findings;
  },
};
