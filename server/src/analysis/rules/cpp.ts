/** C++/CUDA shapes the native rules share: the calls of each function in source order. */
import type { Node, Tree } from 'web-tree-sitter';

export interface CppCall {
  node: Node;
  name: string;
}

export const ALLOCATIONS = new Set(['cudaMalloc', 'cudaMallocAsync', 'cudaMallocManaged', 'cudaMallocHost', 'cudaMallocPitch', 'ncclMemAlloc', 'hipMalloc', 'hipMallocAsync']);
export const COLLECTIVES = new Set(['ncclAllReduce', 'ncclBroadcast', 'ncclAllGather', 'ncclReduceScatter', 'ncclReduce', 'ncclAlltoAll', 'rcclAllReduce']);
export const DRAIN = new Set(['cudaGetLastError', 'hipGetLastError']);

/** Each function definition with its calls in source order. */
export function functionCalls(tree: Tree): Array<{ fn: Node; calls: CppCall[] }> {
  const out: Array<{ fn: Node; calls: CppCall[] }> = [];
  for (const fn of tree.rootNode.descendantsOfType('function_definition')) {
    if (!fn) continue;
    const calls: CppCall[] = [];
    for (const call of fn.descendantsOfType('call_expression')) {
      const callee = call?.childForFieldName('function');
      if (!call || !callee) continue;
      const name = callee.type === 'qualified_identifier' ? (callee.text.split('::').pop() ?? callee.text) : callee.text;
      calls.push({ node: call, name });
    }
    calls.sort((a, b) => a.node.startIndex - b.node.startIndex);
    out.push({ fn, calls });
  }
  return out;
}

/** True when the call's status is kept for a later check instead of being thrown by a CHECK macro. */
export function resultIsKept(call: Node): boolean {
  const parent = call.parent;
  if (!parent) return false;
  return ['init_declarator', 'assignment_expression', 'binary_expression', 'condition_clause', 'parenthesized_expression', 'unary_expression', 'return_statement'].includes(parent.type);
}

/** True for CUDA runtime / NCCL / HIP calls whose behaviour the sticky last error affects. */
export function isRuntimeCall(name: string): boolean {
  return (name.startsWith('cuda') || name.startsWith('nccl') || name.startsWith('hip')) && !DRAIN.has(name) && name !== 'cudaPeekAtLastError' && name !== 'cudaGetErrorString' && name !== 'ncclGetErrorString';
}
