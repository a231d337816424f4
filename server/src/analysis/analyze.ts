/**
 * Source -> facts -> plan -> findings, for one parsed document. The LSP side and the CLI both
 * call `analyzeDocument`; nothing here knows about either.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { deviceNames, findDevice, type DeviceSpec } from '../devices/catalog';
import { extractFacts, FACT_KWARGS, type TrainingFacts } from './facts';
import { languageForPath, ParsedDocument } from './parser';
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

/** Runs facts, plan and every rule for the document's language. */
export function analyzeDocument(doc: ParsedDocument, filePath: string, device: DeviceSpec): AnalysisResult {
  const result: AnalysisResult = { findings: [] };
  let idx: PythonIndex | undefined;
  if (doc.language === 'python') {
    idx = new PythonIndex(doc.tree, FACT_KWARGS);
    result.facts = extractFacts(idx, { baseDir: path.dirname(filePath) });
    const plan = planMemory(result.facts, { device });
    if (plan) result.plan = plan;
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

/** Reads, parses and analyzes a file from disk. */
export async function analyzeFile(filePath: string, device: DeviceSpec): Promise<AnalysisResult> {
  const language = languageForPath(filePath);
  if (!language) {
    throw Object.assign(new Error(`${filePath}: not a Python or C++/CUDA source (.py, .cpp, .cc, .cu, .cuh, .h, .hpp).`), { code: 'HEADROOM_UNSUPPORTED_FILE' });
  }
  const text = await readFile(filePath, 'utf8');
  const doc = await ParsedDocument.create(language, text);
  try {
    return analyzeDocument(doc, filePath, device);
  } finally {
    doc.dispose();
  }
}
