/**
 * HR002 (seed 000): on ROCm, tensors freed with `del` stay in PyTorch's cache; RCCL then finds the
 * device full and the runtime aborts the process instead of raising a catchable OOM. Release the
 * cache (`torch.cuda.empty_cache()`) before the collectives.
 */
import type { Node } from 'web-tree-sitter';
import { insertBefore, statementOf } from './edits';
import { enclosingFunction } from './python';
import type { Finding, Rule } from './types';

export const rule: Rule = {
  id: 'HR002',
  class: 'cache-held-collective',
  title: 'Collective after freeing tensors into the cache, on ROCm',
  docs: 'rules/HR002.md',
  languages: ['python'],
  detect({ idx, facts, device, text }): Finding[] {
    if (!idx || !facts || device.platform !== 'rocm' || facts.collectives.length === 0) return [];
    const deletes: Node[] = idx.deleteStatements;
    const findings: Finding[] = [];
    const reported = new Set<number>();
    for (const del of deletes) {
      const scope = enclosingFunction(del)?.id ?? -1;
      const emptied = (from: number, to: number): boolean => facts.emptyCache.some((e) => {
        const at = e.loc.line * 1e6 + e.loc.character;
        return at > from && at < to;
      });
      const delAt = del.startPosition.row * 1e6 + del.startPosition.column;
      const next = facts.collectives
        .map((c) => ({ c, node: idx.nodeAt(c.loc) }))
        .filter(({ c, node }) => c.loc.line * 1e6 + c.loc.character > delAt && (enclosingFunction(node)?.id ?? -1) === scope)
        .sort((a, b) => a.c.loc.line - b.c.loc.line)[0];
      if (!next || reported.has(next.c.loc.line)) continue;
      if (emptied(delAt, next.c.loc.line * 1e6 + next.c.loc.character)) continue;
      reported.add(next.c.loc.line);
      const stmt = statementOf(next.node);
      findings.push({
        rule: 'HR002',
        class: 'cache-held-collective',
        severity: 'warning',
        loc: next.c.loc,
        message:
          `${next.c.value} runs after \`${del.text}\` (line ${del.startPosition.row + 1}) without releasing PyTorch's cache. On ROCm (${device.name}) ` +
          'RCCL allocates outside the cache; if the device is full the HSA runtime aborts the process (SIGABRT, no Python exception) instead of raising an OOM.',
        fix: 'Call torch.cuda.empty_cache() after freeing large tensors and before the collective, and keep headroom for RCCL.',
        codeFix: { title: 'Release the cache before the collective', edits: [insertBefore(text, stmt, ['torch.cuda.empty_cache()'])] },
        evidence: [`line ${del.startPosition.row + 1}: ${del.text}`, `line ${next.c.loc.line + 1}: ${next.c.evidence}`, `target ${device.name} (${device.platform})`],
      });
    }
    return findings;
  },
};
