/**
 * HR005 (seed 004): a rank can leave the collective path. Either an exception handler around an
 * allocation exits (continue/return/break) before a collective that the other ranks still enter,
 * or a collective sits under a rank-dependent condition. The healthy ranks then wait in the
 * collective until the watchdog kills the job.
 */
import type { Node } from 'web-tree-sitter';
import { locOf, type PythonIndex } from '../pyindex';
import { insertAfter, insertBefore } from './edits';
import { catchesOom, handlerBlock, isRankCondition } from './python';
import type { CodeFix, Finding, Rule } from './types';

const EXITS = ['continue_statement', 'return_statement', 'break_statement'];
const POINT_TO_POINT = new Set(['send', 'recv', 'isend', 'irecv']);

/**
 * Every rank records whether its try succeeded, all ranks take the minimum, and all of them take
 * the exit together (the handler's own exit becomes "mark failed").
 */
function agreeFix(idx: PythonIndex, text: string, tryStmt: Node, exit: Node): CodeFix {
  const dist = [...idx.aliases].find(([, module]) => module === 'torch.distributed')?.[0] ?? 'torch.distributed';
  return {
    title: 'Agree on the outcome across ranks before the collective',
    edits: [
      insertBefore(text, tryStmt, ['ok = torch.ones(1, device="cuda")  # 1 while this rank\'s allocation succeeded']),
      { range: locOf(exit), newText: 'ok.zero_()' },
      insertAfter(text, tryStmt, [`${dist}.all_reduce(ok, op=${dist}.ReduceOp.MIN)`, 'if ok.item() == 0:  # some rank failed: every rank skips together', `    ${exit.text}`]),
    ],
  };
}

export const rule: Rule = {
  id: 'HR005',
  class: 'rank-divergent-allocation',
  title: 'An OOM or rank-conditional path can skip a collective the other ranks enter',
  docs: 'rules/HR005.md',
  languages: ['python'],
  detect({ idx, facts, text }): Finding[] {
    if (!idx || !facts || facts.collectives.length === 0) return [];
    const findings: Finding[] = [];
    // Spans read once: a node's end position crosses into WebAssembly on every read.
    const collectiveNodes = facts.collectives.map((c) => {
      const node = idx.nodeAt(c.loc);
      return { c, node, start: node.startIndex, end: node.endIndex };
    });

    for (const tryStmt of idx.tryStatements) {
      // Cheap test first: a collective inside the try or after it in the same block.
      const tryStart = tryStmt.startIndex;
      const scopeEnd = tryStmt.parent?.endIndex ?? tryStmt.endIndex;
      if (!collectiveNodes.some(({ start }) => start > tryStart && start < scopeEnd)) continue;
      const tryEnd = tryStmt.endIndex;
      const body = tryStmt.childForFieldName('body');
      const bodyStart = body?.startIndex ?? -1;
      const bodyEnd = body?.endIndex ?? -1;
      const inBody = (x: { start: number; end: number }): boolean => x.start >= bodyStart && x.end <= bodyEnd;
      for (const clause of tryStmt.namedChildren) {
        if (clause?.type !== 'except_clause' || !catchesOom(clause, true)) continue;
        const block = handlerBlock(clause);
        const exit = block?.descendantsOfType(EXITS)[0] ?? undefined;
        if (!exit) continue;
        // The collectives this exit skips: inside the try body after the allocation, or after the try
        // statement within the enclosing block (up to the end of the loop/function body).
        const skipped = collectiveNodes.find((x) => inBody(x) || (x.start > tryEnd && x.end <= scopeEnd));
        if (!skipped) continue;
        const afterTry = !inBody(skipped);
        const exitIsStatement = exit.parent?.id === block?.id;
        findings.push({
          rule: 'HR005',
          class: 'rank-divergent-allocation',
          severity: 'warning',
          ...(afterTry && exitIsStatement && { codeFix: agreeFix(idx, text, tryStmt, exit) }),
          loc: locOf(clause.child(0) ?? clause),
          message:
            `When this handler runs on one rank, \`${exit.text.split('\n')[0]}\` skips ${skipped.c.value} (line ${skipped.c.loc.line + 1}) that the other ranks still enter: ` +
            'they hang until the process-group timeout (10 min by default) instead of failing together.',
          fix: 'Record success in a flag, all_reduce(MIN) it on every rank after the try, and take the same branch on all ranks (skip the step everywhere or nowhere).',
          evidence: [`handler line ${clause.startPosition.row + 1}: ${clause.text.split('\n')[0]}`, `exit line ${exit.startPosition.row + 1}: ${exit.text.split('\n')[0]}`, `collective line ${skipped.c.loc.line + 1}: ${skipped.c.evidence}`],
        });
      }
    }

    for (const { c, node } of collectiveNodes) {
      if (POINT_TO_POINT.has(c.value)) continue;
      let cond: Node | undefined;
      for (let p: Node | null = node.parent; p; p = p.parent) {
        if (p.type === 'if_statement' || p.type === 'elif_clause') {
          const condition = p.childForFieldName('condition');
          if (condition && isRankCondition(condition)) cond = p;
        }
        if (p.type === 'function_definition') break;
      }
      if (!cond) continue;
      findings.push({
        rule: 'HR005',
        class: 'rank-divergent-allocation',
        severity: 'warning',
        loc: c.loc,
        message: `${c.value} is only reached when \`${cond.childForFieldName('condition')?.text}\` holds, so some ranks never enter it and the others hang in it.`,
        fix: 'Call the collective on every rank (move it out of the rank condition); keep only rank-specific work inside it.',
        evidence: [`condition line ${cond.startPosition.row + 1}: ${cond.text.split('\n')[0]}`, `collective line ${c.loc.line + 1}: ${c.evidence}`],
      });
    }
    return findings;
  },
};
