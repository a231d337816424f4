/**
 * HR008: an out-of-memory handler retries inside the `except` block. The exception and its
 * traceback keep the failed attempt's frames, and every tensor they reference, alive until the
 * handler exits, so the retry runs with less memory than the first attempt (PyTorch FAQ, "My out of
 * memory exception handler can't allocate memory"). Retry after the handler instead.
 */
import type { Node } from 'web-tree-sitter';
import { locOf } from '../pyindex';
import { indentOf, insertAfter, insertBefore } from './edits';
import { catchesOom, enclosingFunction, handlerBlock } from './python';
import type { Finding, Rule } from './types';

/** Calls that are not a retry of the work: in-place tensor ops, logging, cache calls. */
const BOOKKEEPING = new Set(['empty_cache', 'print', 'log', 'info', 'warning', 'debug', 'append', 'item', 'format', 'len', 'str', 'synchronize', 'reset_peak_memory_stats']);

export const rule: Rule = {
  id: 'HR008',
  class: 'oom-handler-retention',
  title: 'OOM handler retries while still holding the exception',
  docs: 'rules/HR008.md',
  languages: ['python'],
  detect({ idx, text }): Finding[] {
    if (!idx) return [];
    const findings: Finding[] = [];
    for (const tryStmt of idx.tryStatements) {
      const body = tryStmt.childForFieldName('body');
      if (!body) continue;
      const clauses = tryStmt.namedChildren.filter((c): c is Node => c?.type === 'except_clause' && catchesOom(c));
      if (clauses.length === 0) continue;
      const tried = new Set(idx.callsWithin(body).map((c) => c.calleeText));
      const fnName = enclosingFunction(tryStmt)?.childForFieldName('name')?.text;
      for (const clause of clauses) {
        const block = handlerBlock(clause);
        if (!block) continue;
        const retry = idx.callsWithin(block).map((c) => c.node).find((n) => {
          const callee = n.childForFieldName('function')?.text ?? '';
          const method = callee.split('.').pop() ?? callee;
          const bookkeeping = method.endsWith('_') || BOOKKEEPING.has(method);
          return (tried.has(callee) && !bookkeeping) || (fnName !== undefined && callee === fnName);
        });
        if (!retry) continue;
        const holder = retry.parent?.type === 'assignment' ? retry.parent.parent : retry.parent;
        const retryStmt = holder && (holder.type === 'expression_statement' || holder.type === 'return_statement') ? holder : undefined;
        const finding: Finding = {
          rule: 'HR008',
          class: 'oom-handler-retention',
          severity: 'warning',
          loc: locOf(retry),
          message:
            `\`${retry.text.split('\n')[0]}\` retries inside the OOM handler. Until the handler exits, the exception's traceback keeps the failed attempt's tensors alive ` +
            '(and empty_cache() cannot release them), so the retry starts with less free memory than the attempt that failed.',
          fix: 'Set a flag in the handler, leave the except block, then free the cache and retry outside it.',
          evidence: [`handler line ${clause.startPosition.row + 1}: ${clause.text.split('\n')[0]}`, `retry line ${retry.startPosition.row + 1}: ${retry.text.split('\n')[0]}`],
        };
        if (retryStmt && retryStmt.parent?.id === block.id) {
          const retryIndent = indentOf(text, retryStmt.startPosition.row);
          const lines = retryStmt.text.split('\n');
          finding.codeFix = {
            title: 'Retry after the except block',
            edits: [
              insertBefore(text, tryStmt, ['oom = False']),
              { range: locOf(retryStmt), newText: 'oom = True' },
              insertAfter(text, tryStmt, ['if oom:', '    torch.cuda.empty_cache()', ...lines.map((l, i) => '    ' + (i === 0 ? l : l.startsWith(retryIndent) ? l.slice(retryIndent.length) : l))]),
            ],
          };
        }
        findings.push(finding);
      }
    }
    return findings;
  },
};
