/**
 * HR003 (seed 003): a worker thread allocates on the device or uploads to it while graph calls run
 * on another thread, with no lock shared between them. Runtimes that keep allocation state in a
 * process-global flag toggled by graph calls (furiosa-torch's DRAM_SHARED mode; CUDA's global
 * capture mode) misroute or fail those allocations intermittently.
 */
import type { Node } from 'web-tree-sitter';
import { afterImportsLine } from './edits';
import { statementOf, wrapStatement } from './edits';
import { functionsByName, isDeviceAllocation, underLock } from './python';
import type { Finding, Rule, TextEdit } from './types';

export const LOCK_NAME = 'DEVICE_ALLOC_LOCK';

export const rule: Rule = {
  id: 'HR003',
  class: 'global-state-race',
  title: 'Device allocation on a worker thread concurrent with graph calls, without a shared lock',
  docs: 'rules/HR003.md',
  languages: ['python'],
  detect({ idx, facts, text }): Finding[] {
    if (!idx || !facts || facts.threadTargets.length === 0) return [];
    const graphCalls = [...facts.graphCalls, ...facts.graphCaptures.map((g) => ({ ...g, value: 'torch.cuda.graph' }))];
    if (graphCalls.length === 0) return [];
    const functions = functionsByName(idx.functions);
    const findings: Finding[] = [];
    const seen = new Set<number>();
    for (const target of facts.threadTargets) {
      const name = target.value.split('.').pop() ?? target.value;
      for (const fn of functions.get(name) ?? []) {
        for (const call of idx.calls) {
          if (call.node.startIndex < fn.startIndex || call.node.endIndex > fn.endIndex) continue;
          if (!isDeviceAllocation(idx, call) || underLock(call.node) || seen.has(call.node.id)) continue;
          seen.add(call.node.id);
          const unlockedGraphs = graphCalls.filter((g) => !underLock(idx.nodeAt(g.loc)));
          const edits: TextEdit[] = [];
          const hasLock = idx.assignments.has(LOCK_NAME);
          if (!hasLock) {
            const line = afterImportsLine(idx.root);
            edits.push({ range: { line, character: 0, endLine: line, endCharacter: 0 }, newText: `${idx.aliases.has('threading') ? '' : 'import threading\n'}${LOCK_NAME} = threading.Lock()  # one lock for graph calls and device allocations\n` });
          }
          const stmts = new Map<number, Node>();
          for (const node of [call.node, ...unlockedGraphs.map((g) => idx.nodeAt(g.loc))]) {
            const stmt = statementOf(node);
            stmts.set(stmt.id, stmt);
          }
          for (const stmt of stmts.values()) edits.push(wrapStatement(text, stmt, `with ${LOCK_NAME}:`));
          findings.push({
            rule: 'HR003',
            class: 'global-state-race',
            severity: 'warning',
            loc: { line: call.node.startPosition.row, character: call.node.startPosition.column, endLine: call.node.endPosition.row, endCharacter: call.node.endPosition.column },
            message:
              `\`${call.node.text.split('\n')[0]}\` allocates on the device from worker thread function \`${name}\` while ${graphCalls.length} graph call(s) run on other threads ` +
              `(e.g. line ${graphCalls[0]!.loc.line + 1}) with no shared lock. A process-global allocation mode toggled by graph calls makes such allocations fail intermittently ("capacity 0" OOMs far below plan).`,
            fix: `Take one process-wide lock (${LOCK_NAME}) around graph calls and device allocations; keep the host-side copy outside it.`,
            codeFix: { title: `Serialize graph calls and device allocations with ${LOCK_NAME}`, edits: dedupe(edits) },
            evidence: [`thread target: ${target.evidence} (line ${target.loc.line + 1})`, ...graphCalls.slice(0, 3).map((g) => `graph call line ${g.loc.line + 1}: ${g.evidence}`)],
          });
        }
      }
    }
    return findings;
  },
};

/** Overlapping line edits would corrupt the file: keep the first of any overlap. */
function dedupe(edits: TextEdit[]): TextEdit[] {
  const out: TextEdit[] = [];
  for (const e of edits.sort((a, b) => a.range.line - b.range.line)) {
    const prev = out[out.length - 1];
    if (prev && e.range.line < prev.range.endLine) continue;
    out.push(e);
  }
  return out;
}
