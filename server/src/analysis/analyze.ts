/**
 * Source -> facts -> plan -> findings, for one parsed document. The LSP side and the CLI both
 * call `analyzeDocument`; nothing here knows about either.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Tree } from 'web-tree-sitter';
import * as path from 'node:path';
import { deviceNames, findDevice, type DeviceSpec } from '../devices/catalog';
import { extractFacts, FACT_KWARGS, type TrainingFacts } from './facts';
import { extractLaunch, launchesOf, scriptArguments, type Invocation, type LaunchFacts } from './launch';
import { launchConfigArgs } from './vscodeLaunch';
import { languageForPath, ParsedDocument, parseSideFile } from './parser';
import { planMemory, type MemoryPlan } from './plan';
import { PythonIndex } from './pyindex';
import { RULES } from './rules/index';
import type { Finding } from './rules/types';

export interface AnalysisResult {
  facts?: TrainingFacts;
  plan?: MemoryPlan;
  findings: Finding[];
}

/** Resolves a device name, failing with a coded error that lists the catalog. */
export function resolveDevice(name: string): DeviceSpec {
  const device = findDevice(name);
  if (!device) {
    throw Object.assign(new Error(`Unknown device "${name}". Known devices: ${deviceNames().join(', ')}.`), { code: 'HEADROOM_UNKNOWN_DEVICE' });
  }
  return device;
}

/**
 * Runs facts, plan and every rule for the document's language. The script's arguments come from a
 * launch script beside it, then a `.vscode/launch.json` configuration that runs it, then `scriptArgs`
 * (the CLI's `-- ARGS`); a later source wins for the same flag.
 */
export function analyzeDocument(doc: ParsedDocument, filePath: string, device: DeviceSpec, scriptArgs: readonly string[] = []): AnalysisResult {
  const result: AnalysisResult = { findings: [] };
  let idx: PythonIndex | undefined;
  if (doc.language === 'python') {
    const launch = launchesOf(filePath)[0];
    const debugConfig = launchConfigArgs(filePath);
    const given = scriptArguments(scriptArgs);
    const overrides = new Map<string, string>();
    for (const args of [launch?.invocation.args, debugConfig?.args, given]) {
      for (const [flag, value] of args ?? []) overrides.set(flag.split('-').join('_'), value);
    }
    idx = new PythonIndex(doc.tree, FACT_KWARGS, overrides);
    result.facts = extractFacts(idx, { baseDir: path.dirname(filePath) });
    if (launch) applyLaunch(result.facts, launch.file, launch.facts, launch.invocation);
    const sources = [...(debugConfig ? [debugConfig.source] : []), ...(given.size > 0 ? ['the command line'] : [])];
    if (sources.length > 0) result.facts.argumentsFrom = sources.join(' and ');
    const plan = planMemory(result.facts, { device });
    if (plan) result.plan = plan;
  } else if (doc.language === 'bash') {
    result.facts = launchScriptFacts(doc.tree, filePath);
  }
  for (const rule of RULES) {
    if (!rule.languages.includes(doc.language)) continue;
    result.findings.push(
      ...rule.detect({
        language: doc.language,
        text: doc.text,
        tree: doc.tree,
        device,
        ...(idx && { idx }),
        ...(result.facts && { facts: result.facts }),
        ...(result.plan && { plan: result.plan }),
      }),
    );
  }
  result.findings.sort((a, b) => a.loc.line - b.loc.line || a.rule.localeCompare(b.rule));
  return result;
}

function applyLaunch(facts: TrainingFacts, file: string, launch: LaunchFacts, invocation: Invocation): void {
  const evidence = `${path.basename(file)}:${invocation.loc.line + 1}: ${invocation.evidence}`;
  facts.launch = { file, line: invocation.loc.line, evidence };
  if (invocation.worldSize !== undefined) {
    facts.worldSize = { value: invocation.worldSize, loc: { line: 0, character: 0, endLine: 0, endCharacter: 0 }, evidence };
  }
  if (launch.allocConf.length > 0) facts.launchAllocConf = launch.allocConf;
}

/**
 * A launch script's facts: the allocator settings it exports, and whether a training script it
 * starts sets a memory fraction (which HR010 needs to know).
 */
function launchScriptFacts(tree: Tree, filePath: string): TrainingFacts {
  const launch = extractLaunch(tree);
  const facts: TrainingFacts = { collectives: [], threadTargets: [], graphCaptures: [], graphCalls: [], emptyCache: [], allocConf: launch.allocConf };
  for (const inv of launch.invocations) {
    const script = path.resolve(path.dirname(filePath), inv.script);
    if (!existsSync(script)) continue;
    const pyTree = parseSideFile('python', readFileSync(script, 'utf8'));
    try {
      const fraction = new PythonIndex(pyTree).calls.find((c) => c.method === 'set_per_process_memory_fraction');
      if (fraction) facts.memoryFraction = { value: 1, loc: inv.loc, evidence: `${inv.script} calls set_per_process_memory_fraction` };
    } finally {
      pyTree.delete();
    }
  }
  return facts;
}

/** Reads, parses and analyzes a file from disk. */
export async function analyzeFile(filePath: string, device: DeviceSpec, scriptArgs: readonly string[] = []): Promise<AnalysisResult> {
  const language = languageForPath(filePath);
  if (!language) {
    throw Object.assign(new Error(`${filePath}: not a Python, C++/CUDA or shell file (.py, .cpp, .cc, .cu, .cuh, .h, .hpp, .sh).`), { code: 'HEADROOM_UNSUPPORTED_FILE' });
  }
  const text = await readFile(filePath, 'utf8');
  const doc = await ParsedDocument.create(language, text);
  try {
    return analyzeDocument(doc, filePath, device, scriptArgs);
  } finally {
    doc.dispose();
  }
}
