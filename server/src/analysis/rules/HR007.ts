/**
 * HR007 (seed 004): the buffer for the rank-agreement collective (the "ok" flag every rank
 * all-reduces) is allocated after the risky allocation. When the risky allocation fails, the
 * flag's own allocation fails too (sticky error or a full device), the rank throws before the
 * agreement collective, and the other ranks hang in it. Allocate the flag first.
 */
import { locOf } from '../pyindex';
import { ALLOCATIONS, COLLECTIVES, functionCalls } from './cpp';
import { linesOf, statementOf } from './edits';
import type { Finding, Rule } from './types';

function allocatedName(call: { node: import('web-tree-sitter').Node }): string | undefined {
  const first = call.node.childForFieldName('arguments')?.namedChildren[0];
  if (!first) return undefined;
  const inner = first.type === 'pointer_expression' ? first.childForFieldName('argument') : first.type === 'cast_expression' ? first.childForFieldName('value') : first;
  const target = inner?.type === 'pointer_expression' ? inner.childForFieldName('argument') : inner;
  return target?.type === 'identifier' ? target.text : undefined;
}

export const rule: Rule = {
  id: 'HR007',
  class: 'rank-divergent-allocation',
  title: 'Rank-sync buffer allocated after the risky allocation',
  docs: 'rules/HR007.md',
  languages: ['cpp'],
  detect({ tree, text }): Finding[] {
    const findings: Finding[] = [];
    const lines = linesOf(text);
    for (const { calls } of functionCalls(tree)) {
      const risky = calls.find((c) => c.name === 'ncclMemAlloc');
      if (!risky) continue;
      for (const flagAlloc of calls) {
        if (flagAlloc.node.startIndex <= risky.node.endIndex || !ALLOCATIONS.has(flagAlloc.name) || flagAlloc.name === 'ncclMemAlloc') continue;
        const flag = allocatedName(flagAlloc);
        if (!flag) continue;
        const collective = calls.find((c) => COLLECTIVES.has(c.name) && c.node.startIndex > flagAlloc.node.endIndex &&
          (c.node.childForFieldName('arguments')?.namedChildren ?? []).some((a) => a?.text.includes(flag)));
        if (!collective) continue;
        const flagStmt = statementOf(flagAlloc.node);
        const riskyStmt = statementOf(risky.node);
        const sameBlock = flagStmt.parent?.id === riskyStmt.parent?.id;
        const moved = lines.slice(flagStmt.startPosition.row, flagStmt.endPosition.row + 1).join('\n') + '\n';
        findings.push({
          rule: 'HR007',
          class: 'rank-divergent-allocation',
          severity: 'warning',
          loc: locOf(flagAlloc.node),
          message:
            `\`${flag}\` feeds ${collective.name} (line ${collective.node.startPosition.row + 1}) that keeps ranks in agreement, but it is allocated after ncclMemAlloc (line ${risky.node.startPosition.row + 1}). ` +
            'If ncclMemAlloc fails, this allocation inherits the error, the rank throws, and the healthy ranks hang in the collective.',
          fix: `Allocate \`${flag}\` before ncclMemAlloc, so every rank reaches ${collective.name} whatever the risky allocation does.`,
          ...(sameBlock && {
            codeFix: {
              title: `Allocate ${flag} before ncclMemAlloc`,
              edits: [
                { range: { line: riskyStmt.startPosition.row, character: 0, endLine: riskyStmt.startPosition.row, endCharacter: 0 }, newText: moved },
                { range: { line: flagStmt.startPosition.row, character: 0, endLine: flagStmt.endPosition.row + 1, endCharacter: 0 }, newText: '' },
              ],
            },
          }),
          evidence: [
            `risky allocation line ${risky.node.startPosition.row + 1}: ${risky.node.text}`,
            `flag allocation line ${flagAlloc.node.startPosition.row + 1}: ${flagAlloc.node.text}`,
            `collective line ${collective.node.startPosition.row + 1}: ${collective.node.text.split('\n')[0]}`,
          ],
        });
      }
    }
    return findings;
  },
};
