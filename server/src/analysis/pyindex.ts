/**
 * A one-pass index of a Python syntax tree: import aliases (so `dist.all_reduce` is known to be
 * `torch.distributed.all_reduce`), every call with its canonical name, literal constants and
 * argparse defaults (so `args.batch_size` and `BATCH = 8` resolve to numbers), and helpers the
 * fact extractor and the rules share to read literals and walk scopes.
 */
import type { Language, Node, Query, Tree } from 'web-tree-sitter';
import TreeSitter = require('web-tree-sitter');

/** A 0-based source range (LSP convention). */
export interface Loc {
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
}

export function locOf(node: Node): Loc {
  return {
    line: node.startPosition.row,
    character: node.startPosition.column,
    endLine: node.endPosition.row,
    endCharacter: node.endPosition.column,
  };
}

export interface CallSite {
  node: Node;
  /** Dotted name with import aliases resolved, e.g. `torch.distributed.all_reduce`; the callee text otherwise. */
  name: string;
  /** The last segment of the callee (`all_reduce`), for method calls on unknown objects. */
  method: string;
  /** The callee as written. */
  calleeText: string;
  /** The call's span (cached: reading a node's end crosses into WebAssembly). */
  startIndex: number;
  endIndex: number;
}

export type PyValue = number | string | boolean | null | PyValue[] | { [key: string]: PyValue };

function* walk(node: Node): Generator<Node> {
  const cursor = node.walk();
  let reachedRoot = false;
  while (!reachedRoot) {
    yield cursor.currentNode;
    if (cursor.gotoFirstChild()) continue;
    if (cursor.gotoNextSibling()) continue;
    let retracing = true;
    while (retracing) {
      if (!cursor.gotoParent()) {
        retracing = false;
        reachedRoot = true;
      } else if (cursor.currentNode.id === node.id) {
        retracing = false;
        reachedRoot = true;
      } else if (cursor.gotoNextSibling()) {
        retracing = false;
      }
    }
  }
  cursor.delete();
}

/** Every descendant of `node` (itself included) in document order. */
export function descendants(node: Node): Node[] {
  return [...walk(node)];
}

/** The decoded value of a plain string literal; undefined for f-strings and non-strings. */
export function stringValue(node: Node | null): string | undefined {
  if (!node) return undefined;
  if (node.type === 'concatenated_string') {
    const parts = node.namedChildren.map((c) => stringValue(c));
    return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
  }
  if (node.type !== 'string') return undefined;
  if (node.namedChildren.some((c) => c?.type === 'interpolation')) return undefined;
  return node.namedChildren
    .filter((c): c is Node => c?.type === 'string_content' || c?.type === 'escape_sequence')
    .map((c) => (c.type === 'escape_sequence' ? unescape(c.text) : c.text))
    .join('');
}

function unescape(seq: string): string {
  const map: Record<string, string> = { '\\n': '\n', '\\t': '\t', '\\\\': '\\', "\\'": "'", '\\"': '"' };
  return map[seq] ?? seq;
}

/**
 * One native query pass finds every node the index needs, with the fields it reads, so building
 * the index creates JS objects for those nodes only (a JS walk over a 2,000-line file costs several
 * times more). Keyword arguments are filtered by name in JS: a text predicate in the query costs more.
 */
const INDEX_QUERY = `
(import_statement) @import
(import_from_statement) @import_from
(assignment left: (_) @assign_left right: (_) @assign_right)
(augmented_assignment left: (identifier) @augmented)
(call function: (_) @callee) @call
(comment) @comment
(pair key: (_) @pair_key value: (_) @pair_value)
(if_statement) @if
(try_statement) @try
(delete_statement) @delete
(function_definition) @function
(class_definition) @class
(keyword_argument name: (identifier) @kw_name)
`;

const queries = new WeakMap<Language, Query>();

function indexQuery(language: Language): Query {
  let query = queries.get(language);
  if (!query) {
    query = new TreeSitter.Query(language, INDEX_QUERY);
    queries.set(language, query);
  }
  return query;
}

export class PythonIndex {
  /** Local name -> dotted module path, from `import a.b as c` and `from a import b as c`. */
  readonly aliases = new Map<string, string>();
  readonly calls: CallSite[] = [];
  /** Simple name -> right-hand side of its last plain assignment anywhere in the file. */
  readonly assignments = new Map<string, Node>();
  /** Destination -> value passed for it, with short options resolved to their destinations. */
  private readonly argOverrides: Map<string, string>;
  /** argparse short options (`-b` kept as `_b`, the way passed flags are normalised) -> their destination. */
  private readonly shortOptions = new Map<string, string>();
  /** Names bound to what an argument parser returned (`args`, HfArgumentParser's dataclasses). */
  private readonly parsedArgs = new Set<string>(['args', 'opts', 'cfg', 'config']);
  /** Names assigned more than once or updated in place (`step += 1`): no single value decides a branch. */
  private readonly rebound = new Set<string>();
  /** argparse destination -> default value node. */
  readonly argDefaults = new Map<string, Node>();
  /** `obj.attr = value` assignments. */
  readonly attributeAssignments: Array<{ left: Node; right: Node }> = [];
  /** `obj[key] = value` assignments. */
  readonly subscriptAssignments: Array<{ left: Node; right: Node }> = [];
  /** Keyword name -> value nodes, for the names given to the constructor. */
  readonly kwargValues = new Map<string, Node[]>();
  /** Dictionary entries. */
  readonly pairs: Array<{ key: Node; value: Node }> = [];
  readonly comments: Node[] = [];
  readonly tryStatements: Node[] = [];
  readonly deleteStatements: Node[] = [];
  readonly functions: Node[] = [];
  readonly classes: Node[] = [];
  readonly root: Node;
  /** Index ranges of `if` bodies whose condition is a literal-valued false. */
  private readonly deadRanges: Array<[number, number]> = [];
  /**
   * True while deciding branches: an environment variable's default (`os.environ.get('RANK', -1)`)
   * stands for its value in sizes, but a launcher sets it at run time, so it decides no branch.
   */
  private readingCondition = false;

  /** argparse destinations a launcher sets at run time (`--local_rank`): their defaults decide no branch either. */
  private static readonly LAUNCHER_SET = new Set(['local_rank', 'rank', 'world_size', 'local_world_size', 'node_rank']);

  /**
   * @param kwargNames keyword arguments to index by name (for `kwargValues`).
   * @param passedArgs argparse destinations (or short options, `-b` as `_b`) -> values passed on the
   *   script's command line; they win over the defaults in the script.
   */
  constructor(tree: Tree, kwargNames: readonly string[] = [], passedArgs: ReadonlyMap<string, string> = new Map()) {
    this.root = tree.rootNode;
    this.argOverrides = new Map(passedArgs);
    const wanted = new Set(kwargNames);
    const ifs: Node[] = [];
    for (const { captures } of indexQuery(tree.language).matches(this.root)) {
      const first = captures[0];
      if (!first) continue;
      const other = (name: string): Node | undefined => captures.find((c) => c.name === name)?.node;
      switch (first.name) {
        case 'import':
          this.indexImport(first.node);
          break;
        case 'import_from':
          this.indexImportFrom(first.node);
          break;
        case 'assign_left':
        case 'assign_right': {
          const left = other('assign_left');
          const right = other('assign_right');
          if (!left || !right) break;
          const type = left.type;
          if (right.type === 'call' && /\bparse_\w*args\w*$/.test(right.childForFieldName('function')?.text ?? '')) {
            // `args = parser.parse_args()`, `model_args, training_args = parser.parse_args_into_dataclasses()`.
            for (const name of type === 'identifier' ? [left] : left.namedChildren) if (name?.type === 'identifier') this.parsedArgs.add(name.text);
          }
          if (type === 'identifier') {
            if (this.assignments.has(left.text)) this.rebound.add(left.text);
            this.assignments.set(left.text, right);
          }
          else if (type === 'attribute') this.attributeAssignments.push({ left, right });
          else if (type === 'subscript') this.subscriptAssignments.push({ left, right });
          break;
        }
        case 'augmented':
          this.rebound.add(first.node.text);
          break;
        case 'call':
        case 'callee': {
          const node = other('call');
          const callee = other('callee');
          if (!node || !callee) break;
          const calleeText = callee.text;
          const dot = calleeText.lastIndexOf('.');
          this.calls.push({
            node,
            calleeText,
            name: this.canonicalText(calleeText),
            method: dot >= 0 ? calleeText.slice(dot + 1) : calleeText,
            startIndex: node.startIndex,
            endIndex: node.endIndex,
          });
          break;
        }
        case 'comment':
          this.comments.push(first.node);
          break;
        case 'pair_key':
        case 'pair_value': {
          const key = other('pair_key');
          const value = other('pair_value');
          if (key && value) this.pairs.push({ key, value });
          break;
        }
        case 'if':
          ifs.push(first.node);
          break;
        case 'try':
          this.tryStatements.push(first.node);
          break;
        case 'delete':
          this.deleteStatements.push(first.node);
          break;
        case 'function':
          this.functions.push(first.node);
          break;
        case 'class':
          this.classes.push(first.node);
          break;
        case 'kw_name': {
          // The value node is fetched only for the names asked for (most keywords are not).
          const key = first.node.text;
          if (!wanted.has(key)) break;
          const value = first.node.parent?.childForFieldName('value');
          if (!value) break;
          const list = this.kwargValues.get(key);
          if (list) list.push(value);
          else this.kwargValues.set(key, [value]);
          break;
        }
        default:
          break;
      }
    }
    for (const site of this.calls) if (site.method === 'add_argument') this.indexArgument(site.node);
    // `-b 64` passed for `add_argument('-b', '--batch-size')` is the `batch_size` destination's value.
    for (const [short, dest] of this.shortOptions) {
      const value = this.argOverrides.get(short);
      if (value !== undefined && !this.argOverrides.has(dest)) this.argOverrides.set(dest, value);
    }
    for (const statement of ifs) this.markDeadBranches(statement);
  }

  /**
   * An `if`/`elif`/`else` chain on literal values (`if init_from == 'scratch': ... elif ...`): a branch
   * whose condition is false is dead, and so is every branch after one whose condition is true.
   * Conditions that cannot be evaluated keep their branch and the ones after it alive.
   */
  private markDeadBranches(statement: Node): void {
    const branches: Array<{ condition?: Node | null; body: Node | null }> = [
      { condition: statement.childForFieldName('condition'), body: statement.childForFieldName('consequence') },
      ...statement.childrenForFieldName('alternative').map((clause) => ({
        condition: clause?.type === 'elif_clause' ? clause.childForFieldName('condition') : undefined,
        body: clause?.childForFieldName('consequence') ?? clause?.childForFieldName('body') ?? null,
      })),
    ];
    let taken = false;
    this.readingCondition = true;
    for (const { condition, body } of branches) {
      if (!body) continue;
      const value = taken || condition === undefined ? undefined : this.evaluate(condition);
      if (taken || (condition !== undefined && isFalsy(value))) this.deadRanges.push([body.startIndex, body.endIndex]);
      else if (value !== undefined && !isFalsy(value)) taken = true;
    }
    this.readingCondition = false;
  }

  /** The value a launch script, launch.json or the CLI passed for `--name`, if any. */
  passedArg(name: string): PyValue | undefined {
    const passed = this.argOverrides.get(name);
    return passed === undefined ? undefined : shellArgValue(passed);
  }

  /** An argparse destination's value: the launch script's argument if one was passed, else the default. */
  argValue(dest: string): { value: PyValue; node: Node } | undefined {
    const def = this.argDefaults.get(dest);
    const passed = this.argOverrides.get(dest);
    // Passed but declared elsewhere (an HfArgumentParser dataclass, a config object): the run's value, at the file's top.
    if (!def) return passed !== undefined ? { value: shellArgValue(passed), node: this.root } : undefined;
    const value = passed !== undefined ? shellArgValue(passed) : this.evaluate(def);
    return value === undefined ? undefined : { value, node: def };
  }

  /** The calls inside `node` (by position, without walking the tree). */
  callsWithin(node: Node): CallSite[] {
    const start = node.startIndex;
    const end = node.endIndex;
    return this.calls.filter((c) => c.startIndex >= start && c.endIndex <= end);
  }

  private indexImport(node: Node): void {
    for (const child of node.namedChildren) {
      if (child?.type === 'dotted_name') {
        const first = child.text.split('.')[0] ?? child.text;
        this.aliases.set(first, first);
      } else if (child?.type === 'aliased_import') {
        const name = child.childForFieldName('name');
        const alias = child.childForFieldName('alias');
        if (name && alias) this.aliases.set(alias.text, name.text);
      }
    }
  }

  private indexImportFrom(node: Node): void {
    const moduleName = node.childForFieldName('module_name')?.text;
    if (!moduleName) return;
    for (const child of node.childrenForFieldName('name')) {
      if (child?.type === 'dotted_name') this.aliases.set(child.text, `${moduleName}.${child.text}`);
      else if (child?.type === 'aliased_import') {
        const name = child.childForFieldName('name');
        const alias = child.childForFieldName('alias');
        if (name && alias) this.aliases.set(alias.text, `${moduleName}.${name.text}`);
      }
    }
  }

  /** True when `node` sits in an `if` body whose condition is literal-valued false (a flag defaulting to 0). */
  isDead(node: Node): boolean {
    return this.deadRanges.length > 0 && this.isDeadSpan(node.startIndex, node.endIndex);
  }

  /** `isDead` for a span already known (a call's cached span). */
  isDeadSpan(startIndex: number, endIndex: number): boolean {
    return this.deadRanges.some(([start, end]) => startIndex >= start && endIndex <= end);
  }

  private indexArgument(call: Node): void {
    const args = call.childForFieldName('arguments');
    if (!args) return;
    let dest: string | undefined;
    let defaultNode: Node | undefined;
    const shorts: string[] = [];
    for (const arg of args.namedChildren) {
      if (!arg) continue;
      if (arg.type === 'keyword_argument') {
        const key = arg.childForFieldName('name')?.text;
        const value = arg.childForFieldName('value');
        if (key === 'default' && value) defaultNode = value;
        if (key === 'dest' && value) dest = stringValue(value) ?? dest;
      } else {
        const flag = stringValue(arg);
        if (flag?.startsWith('--')) dest ??= flag.slice(2).split('-').join('_');
        else if (flag?.startsWith('-') && flag.length > 1) shorts.push(flag.split('-').join('_'));
      }
    }
    // Only a short option: argparse names the destination after it (`-b` -> `b`).
    dest ??= shorts[0]?.slice(1);
    if (dest) for (const short of shorts) this.shortOptions.set(short, dest);
    if (dest && defaultNode) this.argDefaults.set(dest, defaultNode);
  }

  /** The dotted name of an identifier/attribute chain with the first segment's import alias resolved. */
  canonical(node: Node): string {
    return this.canonicalText(node.text);
  }

  private canonicalText(text: string): string {
    const [head, ...rest] = text.split('.');
    const resolved = head !== undefined ? this.aliases.get(head) : undefined;
    return resolved ? [resolved, ...rest].join('.') : text;
  }

  /** The smallest node spanning `loc` (the node a fact was read from). */
  nodeAt(loc: Loc): Node {
    return this.root.descendantForPosition({ row: loc.line, column: loc.character }, { row: loc.endLine, column: loc.endCharacter }) ?? this.root;
  }

  /** The value node of keyword argument `key` of a call. */
  kwarg(call: Node, key: string): Node | undefined {
    const args = call.childForFieldName('arguments');
    for (const arg of args?.namedChildren ?? []) {
      if (arg?.type === 'keyword_argument' && arg.childForFieldName('name')?.text === key) {
        return arg.childForFieldName('value') ?? undefined;
      }
    }
    return undefined;
  }

  /** The `index`-th positional argument of a call. */
  positional(call: Node, index: number): Node | undefined {
    const args = call.childForFieldName('arguments');
    const positionals = (args?.namedChildren ?? []).filter(
      (a): a is Node => a !== null && a.type !== 'keyword_argument' && a.type !== 'comment' && a.type !== 'dictionary_splat' && a.type !== 'list_splat',
    );
    return positionals[index];
  }

  /**
   * Evaluates a literal-ish expression: numbers, strings, booleans, None, lists/tuples/dicts of
   * those, names bound to literals, `args.x` argparse defaults, flags passed on the command line,
   * `os.environ.get(k, default)`, `int(...)`/`float(...)`, arithmetic, two-operand comparisons,
   * `and`/`or` and `str.startswith`/`endswith` on those. Returns undefined when it cannot.
   */
  evaluate(node: Node | null | undefined, depth = 0, env?: ReadonlyMap<string, PyValue>): PyValue | undefined {
    if (!node || depth > 8) return undefined;
    switch (node.type) {
      case 'integer': {
        const n = Number(node.text.replace(/_/g, ''));
        return Number.isFinite(n) ? n : undefined;
      }
      case 'float': {
        const n = Number(node.text.replace(/_/g, ''));
        return Number.isFinite(n) ? n : undefined;
      }
      case 'true':
        return true;
      case 'false':
        return false;
      case 'none':
        return null;
      case 'string':
      case 'concatenated_string':
        return stringValue(node);
      case 'parenthesized_expression':
        return this.evaluate(node.namedChildren[0], depth + 1, env);
      case 'not_operator': {
        const v = this.evaluate(node.childForFieldName('argument'), depth + 1, env);
        return v === undefined ? undefined : !v || (Array.isArray(v) && v.length === 0);
      }
      case 'conditional_expression': {
        const [whenTrue, condition, whenFalse] = node.namedChildren;
        const c = this.evaluate(condition, depth + 1, env);
        if (c === undefined) return undefined;
        return this.evaluate(c && c !== 0 ? whenTrue : whenFalse, depth + 1, env);
      }
      case 'unary_operator': {
        const v = this.evaluate(node.childForFieldName('argument'), depth + 1, env);
        return typeof v === 'number' && node.child(0)?.text === '-' ? -v : v;
      }
      case 'identifier': {
        const local = env?.get(node.text);
        if (local !== undefined) return local;
        // nanoGPT's configurator: `--batch_size=4` on the command line overrides the module global.
        const passed = this.argOverrides.get(node.text);
        if (passed !== undefined) return shellArgValue(passed);
        if (this.readingCondition && this.rebound.has(node.text)) return undefined;
        const bound = this.assignments.get(node.text);
        return bound && bound.id !== node.id ? this.evaluate(bound, depth + 1, env) : undefined;
      }
      case 'attribute': {
        const object = node.childForFieldName('object');
        const attr = node.childForFieldName('attribute')?.text;
        if (object?.type !== 'identifier' || !attr || !this.parsedArgs.has(object.text)) return undefined;
        // A flag passed on the command line fills the field of whatever the parser returned
        // (`model_args.model_name_or_path` from HfArgumentParser); defaults come from argparse only.
        const passed = this.argOverrides.get(attr);
        if (passed !== undefined) return shellArgValue(passed);
        if (this.readingCondition && PythonIndex.LAUNCHER_SET.has(attr)) return undefined;
        const def = this.argDefaults.get(attr);
        return def ? this.evaluate(def, depth + 1, env) : undefined;
      }
      case 'comparison_operator': {
        // `a == b`, `a in (...)`, `a is None`: two operands only (chains like `0 < a < b` stay unknown).
        const [left, right] = node.namedChildren;
        if (node.namedChildCount !== 2 || !left || !right) return undefined;
        const a = this.evaluate(left, depth + 1, env);
        const b = this.evaluate(right, depth + 1, env);
        if (a === undefined || b === undefined) return undefined;
        const op = node.children.filter((c) => c && !c.isNamed).map((c) => c!.text).join(' ');
        return compare(op, a, b);
      }
      case 'boolean_operator': {
        const a = this.evaluate(node.childForFieldName('left'), depth + 1, env);
        const op = node.childForFieldName('operator')?.text;
        if (a !== undefined && (op === 'and' ? isFalsy(a) : !isFalsy(a))) return a;
        const b = this.evaluate(node.childForFieldName('right'), depth + 1, env);
        return a === undefined && (b === undefined || (op === 'and' ? !isFalsy(b) : isFalsy(b))) ? undefined : b;
      }
      case 'binary_operator': {
        const a = this.evaluate(node.childForFieldName('left'), depth + 1, env);
        const b = this.evaluate(node.childForFieldName('right'), depth + 1, env);
        const op = node.childForFieldName('operator')?.text;
        if (typeof a !== 'number' || typeof b !== 'number') return undefined;
        switch (op) {
          case '*': return a * b;
          case '+': return a + b;
          case '-': return a - b;
          case '//': return b === 0 ? undefined : Math.floor(a / b);
          case '/': return b === 0 ? undefined : a / b;
          case '**': return a ** b;
          default: return undefined;
        }
      }
      case 'list':
      case 'tuple': {
        const items = node.namedChildren.map((c) => this.evaluate(c, depth + 1, env));
        return items.every((i) => i !== undefined) ? (items as PyValue[]) : undefined;
      }
      case 'dictionary': {
        const out: Record<string, PyValue> = {};
        for (const pair of node.namedChildren) {
          if (pair?.type !== 'pair') continue;
          const k = this.evaluate(pair.childForFieldName('key'), depth + 1, env);
          const v = this.evaluate(pair.childForFieldName('value'), depth + 1, env);
          if (typeof k === 'string' && v !== undefined) out[k] = v;
        }
        return out;
      }
      case 'call': {
        const fn = node.childForFieldName('function');
        if (!fn) return undefined;
        const name = this.canonical(fn);
        if (name === 'int' || name === 'float' || name === 'str') {
          const v = this.evaluate(this.positional(node, 0), depth + 1, env);
          if (name === 'str') return v === undefined ? undefined : String(v);
          const n = typeof v === 'string' ? Number(v) : v;
          return typeof n === 'number' && Number.isFinite(n) ? (name === 'int' ? Math.trunc(n) : n) : undefined;
        }
        if (fn.type === 'attribute' && (fn.childForFieldName('attribute')?.text === 'startswith' || fn.childForFieldName('attribute')?.text === 'endswith')) {
          const subject = this.evaluate(fn.childForFieldName('object'), depth + 1, env);
          const affix = this.evaluate(this.positional(node, 0), depth + 1, env);
          const affixes = Array.isArray(affix) ? affix : [affix];
          if (typeof subject !== 'string' || !affixes.every((x): x is string => typeof x === 'string')) return undefined;
          const starts = fn.childForFieldName('attribute')?.text === 'startswith';
          return affixes.some((x) => (starts ? subject.startsWith(x) : subject.endsWith(x)));
        }
        if ((name === 'os.environ.get' || name === 'os.getenv') && this.readingCondition) return undefined;
        if (name === 'os.environ.get' || name === 'os.getenv') return this.evaluate(this.positional(node, 1), depth + 1, env);
        if (name === 'dict') {
          const out: Record<string, PyValue> = {};
          for (const arg of node.childForFieldName('arguments')?.namedChildren ?? []) {
            if (arg?.type !== 'keyword_argument') continue;
            const k = arg.childForFieldName('name')?.text;
            const v = this.evaluate(arg.childForFieldName('value'), depth + 1, env);
            if (k && v !== undefined) out[k] = v;
          }
          return out;
        }
        return undefined;
      }
      default:
        return undefined;
    }
  }

  evalNumber(node: Node | null | undefined): number | undefined {
    const v = this.evaluate(node);
    return typeof v === 'number' ? v : undefined;
  }

  evalString(node: Node | null | undefined): string | undefined {
    const v = this.evaluate(node);
    return typeof v === 'string' ? v : undefined;
  }
}

/** Python's truth value of a literal. */
function isFalsy(v: PyValue | undefined): boolean {
  return v === false || v === 0 || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** A comparison between two literal values, or undefined for one this reader does not model. */
function compare(op: string, left: PyValue, right: PyValue): boolean | undefined {
  // Python's bool is an int: `args.flag == True` holds for a bare `--flag` read as 1.
  const a = typeof left === 'boolean' ? Number(left) : left;
  const b = typeof right === 'boolean' ? Number(right) : right;
  switch (op) {
    case '==':
    case 'is':
      return typeof a === 'object' || typeof b === 'object' ? (a === null && b === null ? true : undefined) : a === b;
    case '!=':
    case 'is not':
      return typeof a === 'object' || typeof b === 'object' ? (a === null && b === null ? false : undefined) : a !== b;
    case 'in':
    case 'not in': {
      const found = Array.isArray(b) ? b.some((x) => x === a) : typeof b === 'string' && typeof a === 'string' ? b.includes(a) : undefined;
      return found === undefined ? undefined : op === 'in' ? found : !found;
    }
    case '<': case '<=': case '>': case '>=':
      if (typeof a !== 'number' || typeof b !== 'number') return undefined;
      return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
    default:
      return undefined;
  }
}

/** A command-line argument as argparse with `type=int/float` or a flag would see it. */
function shellArgValue(text: string): PyValue {
  if (text === 'True' || text === 'true') return true;
  if (text === 'False' || text === 'false') return false;
  const n = Number(text);
  return text.trim() !== '' && Number.isFinite(n) ? n : text;
}
