/**
 * Launch scripts (bash): the environment they set (PYTORCH_CUDA_ALLOC_CONF and friends) and the
 * training scripts they start, with the launcher's process counts and the script's arguments, so
 * a training script's plan uses the world size and argument values it is really run with.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { Node, Tree } from 'web-tree-sitter';
import type { Located } from './facts';
import { parseSideFile } from './parser';
import { locOf, type Loc } from './pyindex';

export const ALLOC_CONF_VARS = new Set(['PYTORCH_CUDA_ALLOC_CONF', 'PYTORCH_HIP_ALLOC_CONF', 'PYTORCH_ALLOC_CONF']);

export interface Invocation {
  /** The training script as written on the command line. */
  script: string;
  /** `--flag value` / `--flag=value` arguments of the script, flag names with dashes as written (without the leading `--`). */
  args: Map<string, string>;
  /** Processes per node x nodes, when a launcher (torchrun, deepspeed, accelerate) says so. */
  worldSize?: number;
  loc: Loc;
  evidence: string;
}

export interface LaunchFacts {
  allocConf: Array<Located<string>>;
  invocations: Invocation[];
}

function located(value: string, node: Node): Located<string> {
  return { value, loc: locOf(node), evidence: node.parent?.text.split('\n')[0] ?? node.text };
}

/** The value of a shell word, with `$VAR`, `${VAR}` and `${VAR:-default}` from earlier assignments. */
function shellValue(node: Node, vars: Map<string, string>): string | undefined {
  switch (node.type) {
    case 'word':
    case 'number':
    case 'string_content':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'simple_expansion': {
      const name = node.namedChildren[0]?.text;
      return name ? vars.get(name) : undefined;
    }
    case 'expansion': {
      const [nameNode, ...rest] = node.namedChildren;
      const name = nameNode?.text;
      const fallback = rest.find((c) => c?.type === 'word');
      return (name ? vars.get(name) : undefined) ?? (fallback ? fallback.text : undefined);
    }
    case 'string':
    case 'concatenation': {
      const parts = node.namedChildren.map((c) => (c ? shellValue(c, vars) : undefined));
      return parts.every((p) => p !== undefined) ? parts.join('') : undefined;
    }
    default:
      return undefined;
  }
}

const LAUNCHERS = new Set(['torchrun', 'deepspeed']);
const PER_NODE_FLAGS = new Set(['--nproc_per_node', '--nproc-per-node', '--num_gpus', '--num-gpus', '--num_processes', '--num-processes', '--ntasks-per-node']);
const NODE_FLAGS = new Set(['--nnodes', '--num_nodes', '--num-nodes', '--num_machines', '--num-machines']);

/**
 * A script's `--flag value` / `--flag=value` / bare `--flag` (as `1`) arguments, flag names without the
 * leading `--`; short options (`-b 64`) keep their dash, for the index to resolve to a destination.
 */
export function scriptArguments(tokens: readonly string[]): Map<string, string> {
  const args = new Map<string, string>();
  const isFlag = (t: string | undefined): boolean => t !== undefined && /^-{1,2}[A-Za-z]/.test(t);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!isFlag(t)) continue;
    const name = t.startsWith('--') ? t.slice(2) : t;
    const eq = name.indexOf('=');
    if (eq > 0) args.set(name.slice(0, eq), name.slice(eq + 1));
    else if (tokens[i + 1] !== undefined && !isFlag(tokens[i + 1])) args.set(name, tokens[++i]!);
    else args.set(name, '1');
  }
  return args;
}

function invocationOf(tokens: string[], loc: Loc, evidence: string): Invocation | undefined {
  const scriptAt = tokens.findIndex((t) => t.endsWith('.py'));
  if (scriptAt < 0) return undefined;
  const launcher = tokens.slice(0, scriptAt);
  const launched = launcher.some((t) => LAUNCHERS.has(path.basename(t)) || t === 'torch.distributed.run' || t === 'torch.distributed.launch' || t === 'launch');
  let perNode: number | undefined;
  let nodes = 1;
  launcher.forEach((t, i) => {
    const [flag, inline] = t.split('=');
    const value = Number(inline ?? launcher[i + 1]);
    if (!flag || !Number.isFinite(value)) return;
    if (PER_NODE_FLAGS.has(flag)) perNode = value;
    if (NODE_FLAGS.has(flag)) nodes = value;
  });
  return {
    script: tokens[scriptAt]!,
    args: scriptArguments(tokens.slice(scriptAt + 1)),
    ...(launched && perNode !== undefined && { worldSize: perNode * nodes }),
    loc,
    evidence,
  };
}

/** Environment settings and training-script invocations of one bash launch script. */
export function extractLaunch(tree: Tree): LaunchFacts {
  const vars = new Map<string, string>();
  const facts: LaunchFacts = { allocConf: [], invocations: [] };
  const visit = (node: Node): void => {
    if (node.type === 'variable_assignment') {
      const name = node.childForFieldName('name')?.text;
      const valueNode = node.childForFieldName('value');
      const value = valueNode ? shellValue(valueNode, vars) : undefined;
      if (name && value !== undefined) {
        vars.set(name, value);
        if (ALLOC_CONF_VARS.has(name) && valueNode) facts.allocConf.push(located(value, valueNode));
      }
      return;
    }
    if (node.type === 'command') {
      for (const child of node.namedChildren) if (child?.type === 'variable_assignment') visit(child);
      const name = node.childForFieldName('name');
      const tokens = [name, ...node.childrenForFieldName('argument')].map((n) => (n ? shellValue(n, vars) ?? n.text : ''));
      const inv = invocationOf(tokens, locOf(node), node.text.split('\n')[0] ?? '');
      if (inv) facts.invocations.push(inv);
      return;
    }
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(tree.rootNode);
  return facts;
}

interface CachedLaunch {
  mtimeMs: number;
  size: number;
  facts: LaunchFacts;
}

const cache = new Map<string, CachedLaunch>();

/** Launch facts of one file, reparsed only when the file changed on disk. */
export function launchFactsOf(file: string): LaunchFacts | undefined {
  try {
    const st = statSync(file);
    const hit = cache.get(file);
    if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.facts;
    const tree = parseSideFile('bash', readFileSync(file, 'utf8'));
    try {
      const facts = extractLaunch(tree);
      cache.set(file, { mtimeMs: st.mtimeMs, size: st.size, facts });
      return facts;
    } finally {
      tree.delete();
    }
  } catch {
    // An unreadable launch script is treated as absent.
    return undefined;
  }
}

/** The launch scripts beside `scriptPath` that start it, with the matching invocation. */
export function launchesOf(scriptPath: string): Array<{ file: string; facts: LaunchFacts; invocation: Invocation }> {
  const dir = path.dirname(scriptPath);
  const base = path.basename(scriptPath);
  let entries: string[];
  try {
    entries = readdirSync(dir).filter((f) => f.endsWith('.sh') || f.endsWith('.bash'));
  } catch {
    return [];
  }
  const out: Array<{ file: string; facts: LaunchFacts; invocation: Invocation }> = [];
  for (const entry of entries.sort()) {
    const file = path.join(dir, entry);
    const facts = launchFactsOf(file);
    const invocation = facts?.invocations.find((i) => path.basename(i.script) === base);
    if (facts && invocation) out.push({ file, facts, invocation });
  }
  return out;
}
