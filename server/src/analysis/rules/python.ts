/** Python shapes the rules share: device allocations, OOM handlers, rank conditions, lock scopes. */
import type { Node } from 'web-tree-sitter';
import { descendants, type CallSite, type PythonIndex } from '../pyindex';

const CREATORS = new Set(['empty', 'zeros', 'ones', 'full', 'rand', 'randn', 'randint', 'tensor', 'as_tensor', 'arange', 'empty_like', 'zeros_like', 'ones_like', 'empty_strided']);

function mentionsDevice(node: Node | undefined): boolean {
  if (!node) return false;
  const t = node.text;
  return t.includes('cuda') || t.includes('device') || t.includes('dev') || t.includes('hip') || t.includes('npu');
}

/** A call that allocates device memory or uploads to the device: `.to(dev)`, `.cuda()`, `torch.empty(..., device=...)`, `to_device(...)`. */
export function isDeviceAllocation(idx: PythonIndex, call: CallSite): boolean {
  const { node, method, name } = call;
  if (method === 'cuda' || method === 'to_device' || method === 'upload') return true;
  if (method === 'to') return mentionsDevice(idx.positional(node, 0)) || idx.kwarg(node, 'device') !== undefined || idx.kwarg(node, 'non_blocking') !== undefined;
  if (name.startsWith('torch.') && CREATORS.has(method)) return mentionsDevice(idx.kwarg(node, 'device'));
  return false;
}

/** True when the except clause catches an out-of-memory error (or a bare/broad exception around one). */
export function catchesOom(clause: Node, broad = false): boolean {
  const typeText = clause.namedChildren.filter((c) => c && c.type !== 'block' && c.type !== 'comment').map((c) => c!.text).join(' ');
  if (typeText.includes('OutOfMemoryError') || typeText.includes('OOM')) return true;
  if (!broad) return false;
  if (typeText === '' || typeText.includes('RuntimeError') || typeText.includes('Exception') || typeText.includes('MemoryError')) return true;
  return false;
}

/** The block of an except clause. */
export function handlerBlock(clause: Node): Node | undefined {
  return clause.namedChildren.find((c): c is Node => c?.type === 'block');
}

const RANK_WORDS = ['rank', 'local_rank', 'global_rank', 'get_rank', 'is_main_process', 'is_master', 'is_local_main_process', 'process_index'];

/** True when an `if` condition depends on the process's rank. */
export function isRankCondition(condition: Node): boolean {
  return descendants(condition).some((n) => (n.type === 'identifier' && RANK_WORDS.includes(n.text)));
}

/** True when `node` runs inside `with <something lock-like>:`. */
export function underLock(node: Node): boolean {
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'with_statement') {
      const items = p.namedChildren.find((c) => c?.type === 'with_clause');
      if (items && items.text.toLowerCase().includes('lock')) return true;
    }
  }
  return false;
}

/** The enclosing function definition, if any. */
export function enclosingFunction(node: Node): Node | undefined {
  for (let p = node.parent; p; p = p.parent) if (p.type === 'function_definition') return p;
  return undefined;
}

/** Function definitions by simple name (module functions and methods). */
export function functionsByName(functions: readonly Node[]): Map<string, Node[]> {
  const out = new Map<string, Node[]>();
  for (const def of functions) {
    const name = def.childForFieldName('name')?.text;
    if (!name) continue;
    out.set(name, [...(out.get(name) ?? []), def]);
  }
  return out;
}
