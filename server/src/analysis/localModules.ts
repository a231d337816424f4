/**
 * Parameter counts of nn.Module classes defined in the script itself, where the sizes are
 * literal (or constants, argparse defaults, or constructor arguments with literal values): the
 * layers built in `__init__` (Linear, Embedding, Conv, norms, attention, Parameter tensors,
 * ModuleList/Sequential of them, and other local modules) are counted with their constructor's
 * arguments bound.
 */
import type { Node } from 'web-tree-sitter';
import type { PythonIndex, PyValue } from './pyindex';

type Env = Map<string, PyValue>;

const PARAMETER_FREE = new Set([
  'Dropout', 'Dropout1d', 'Dropout2d', 'ReLU', 'GELU', 'SiLU', 'Tanh', 'Sigmoid', 'Softmax', 'LogSoftmax', 'Identity', 'Flatten',
  'MaxPool1d', 'MaxPool2d', 'AvgPool1d', 'AvgPool2d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool2d', 'Upsample', 'LeakyReLU', 'Mish', 'ELU',
]);

function product(v: PyValue | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return (v as number[]).reduce((a, b) => a * b, 1);
  return undefined;
}

export class LocalModules {
  private readonly classes = new Map<string, Node>();

  constructor(private readonly idx: PythonIndex) {
    for (const cls of idx.classes) {
      const name = cls.childForFieldName('name')?.text;
      const supers = cls.childForFieldName('superclasses')?.text ?? '';
      if (name && supers.includes('Module')) this.classes.set(name, cls);
    }
  }

  has(name: string): boolean {
    return this.classes.has(name);
  }

  /** Parameters of `new ClassName(args...)` for a call node evaluated in `env`, or undefined when a size is unknown. */
  countCall(call: Node, env: Env = new Map(), depth = 0): number | undefined {
    if (depth > 8) return undefined;
    const fn = call.childForFieldName('function');
    if (!fn) return undefined;
    const text = fn.text;
    const method = text.slice(text.lastIndexOf('.') + 1);
    const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter((a): a is Node => a !== null && a.type !== 'comment');
    const positional = args.filter((a) => a.type !== 'keyword_argument');
    const kw = (name: string): Node | undefined => args.find((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === name)?.childForFieldName('value') ?? undefined;
    const num = (n: Node | undefined): number | undefined => product(n ? this.idx.evaluate(n, 0, env) : undefined);
    const flag = (n: Node | undefined, fallback: boolean): boolean => {
      const v = n ? this.idx.evaluate(n, 0, env) : undefined;
      return v === undefined ? fallback : Boolean(v);
    };

    if (this.classes.has(method)) return this.countClass(method, positional, args, env, depth + 1);
    if (PARAMETER_FREE.has(method)) return 0;
    switch (method) {
      case 'Linear': {
        const a = num(positional[0] ?? kw('in_features'));
        const b = num(positional[1] ?? kw('out_features'));
        if (a === undefined || b === undefined) return undefined;
        return a * b + (flag(positional[2] ?? kw('bias'), true) ? b : 0);
      }
      case 'Embedding': {
        const n = num(positional[0] ?? kw('num_embeddings'));
        const d = num(positional[1] ?? kw('embedding_dim'));
        return n !== undefined && d !== undefined ? n * d : undefined;
      }
      case 'Conv1d':
      case 'Conv2d':
      case 'Conv3d': {
        const cin = num(positional[0] ?? kw('in_channels'));
        const cout = num(positional[1] ?? kw('out_channels'));
        const kNode = positional[2] ?? kw('kernel_size');
        const kValue = kNode ? this.idx.evaluate(kNode, 0, env) : undefined;
        const dims = method === 'Conv1d' ? 1 : method === 'Conv2d' ? 2 : 3;
        const k = typeof kValue === 'number' ? kValue ** dims : product(kValue);
        const groups = num(kw('groups')) ?? 1;
        if (cin === undefined || cout === undefined || k === undefined) return undefined;
        return (cin / groups) * cout * k + (flag(kw('bias'), true) ? cout : 0);
      }
      case 'LayerNorm': {
        const d = num(positional[0] ?? kw('normalized_shape'));
        if (d === undefined) return undefined;
        return flag(kw('elementwise_affine'), true) ? d * (flag(kw('bias'), true) ? 2 : 1) : 0;
      }
      case 'RMSNorm':
        return num(positional[0] ?? kw('normalized_shape') ?? kw('dim'));
      case 'BatchNorm1d':
      case 'BatchNorm2d':
      case 'BatchNorm3d': {
        const c = num(positional[0] ?? kw('num_features'));
        return c === undefined ? undefined : 2 * c;
      }
      case 'GroupNorm': {
        const c = num(positional[1] ?? kw('num_channels'));
        return c === undefined ? undefined : 2 * c;
      }
      case 'MultiheadAttention': {
        const e = num(positional[0] ?? kw('embed_dim'));
        if (e === undefined) return undefined;
        return 4 * e * e + (flag(kw('bias'), true) ? 4 * e : 0);
      }
      case 'Parameter':
        return positional[0] ? this.countTensor(positional[0], env) : undefined;
      case 'Sequential':
      case 'ModuleList':
      case 'ModuleDict':
        return this.sumItems(positional, env, depth);
      default:
        return undefined;
    }
  }

  /** `torch.randn(a, b)`, `torch.zeros((a, b))`, ... inside nn.Parameter. */
  private countTensor(node: Node, env: Env): number | undefined {
    if (node.type !== 'call') return undefined;
    const dims = (node.childForFieldName('arguments')?.namedChildren ?? []).filter((a): a is Node => a !== null && a.type !== 'keyword_argument');
    if (dims.length === 1) return product(this.idx.evaluate(dims[0], 0, env));
    const values = dims.map((d) => this.idx.evaluate(d, 0, env));
    return values.every((v) => typeof v === 'number') ? (values as number[]).reduce((a, b) => a * b, 1) : undefined;
  }

  private sumItems(items: Node[], env: Env, depth: number): number | undefined {
    let total = 0;
    for (const item of items) {
      const n = this.countItem(item, env, depth);
      if (n === undefined) return undefined;
      total += n;
    }
    return total;
  }

  /** A list element, a `*[...]` splat, a list, a dict of modules, or `[X for _ in range(N)]`. */
  private countItem(item: Node, env: Env, depth: number): number | undefined {
    switch (item.type) {
      case 'call':
        return this.countCall(item, env, depth + 1);
      case 'list_splat':
      case 'parenthesized_expression':
        return item.namedChildren[0] ? this.countItem(item.namedChildren[0], env, depth) : undefined;
      case 'list':
      case 'tuple':
        return this.sumItems(item.namedChildren.filter((c): c is Node => c !== null), env, depth);
      case 'dictionary':
        return this.sumItems(item.namedChildren.map((p) => p?.childForFieldName('value')).filter((c): c is Node => c !== null && c !== undefined), env, depth);
      case 'list_comprehension':
      case 'generator_expression': {
        const body = item.childForFieldName('body');
        const clause = item.namedChildren.find((c) => c?.type === 'for_in_clause');
        const range = clause?.childForFieldName('right');
        if (!body || range?.type !== 'call' || range.childForFieldName('function')?.text !== 'range') return undefined;
        const rangeArgs = (range.childForFieldName('arguments')?.namedChildren ?? []).filter((a): a is Node => a !== null);
        const bounds = rangeArgs.map((a) => this.idx.evaluate(a, 0, env));
        const count = bounds.length === 1 ? bounds[0] : typeof bounds[0] === 'number' && typeof bounds[1] === 'number' ? bounds[1] - bounds[0] : undefined;
        const each = this.countItem(body, env, depth);
        return typeof count === 'number' && each !== undefined ? count * each : undefined;
      }
      default:
        return undefined;
    }
  }

  private countClass(name: string, positional: Node[], args: Node[], callerEnv: Env, depth: number): number | undefined {
    const cls = this.classes.get(name)!;
    const init = cls.childForFieldName('body')?.namedChildren.find((c) => c?.type === 'function_definition' && c.childForFieldName('name')?.text === '__init__');
    if (!init) return undefined;
    const env: Env = new Map();
    const params = (init.childForFieldName('parameters')?.namedChildren ?? []).filter((p): p is Node => p !== null).slice(1);
    params.forEach((p, i) => {
      const pname = p.type === 'identifier' ? p.text : p.childForFieldName('name')?.text;
      if (!pname) return;
      const passed = args.find((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === pname)?.childForFieldName('value') ?? positional[i];
      const value = passed ? this.idx.evaluate(passed, 0, callerEnv) : this.idx.evaluate(p.childForFieldName('value'), 0, env);
      if (value !== undefined) env.set(pname, value);
    });
    let total = 0;
    const body = init.childForFieldName('body');
    for (const stmt of body?.namedChildren ?? []) {
      const assignment = stmt?.type === 'expression_statement' ? stmt.namedChildren[0] : undefined;
      if (assignment?.type !== 'assignment') continue;
      const left = assignment.childForFieldName('left');
      const right = assignment.childForFieldName('right');
      if (!left || !right) continue;
      if (left.type === 'identifier') {
        const v = this.idx.evaluate(right, 0, env);
        if (v !== undefined) env.set(left.text, v);
        continue;
      }
      if (left.type !== 'attribute' || !left.text.startsWith('self.')) continue;
      if (right.type !== 'call') continue;
      const n = this.countCall(right, env, depth);
      if (n === undefined) {
        // Plain attributes (self.n_head = n_head) are not modules; only unknown module calls make the count unknown.
        const callee = right.childForFieldName('function')?.text ?? '';
        if (callee.startsWith('nn.') || callee.startsWith('torch.nn.') || this.classes.has(callee)) return undefined;
        continue;
      }
      total += n;
    }
    return total;
  }
}
