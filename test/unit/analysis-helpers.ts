import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { analyzeDocument, resolveDevice, type AnalysisResult } from '../../server/src/analysis/analyze';
import { languageForPath, ParsedDocument } from '../../server/src/analysis/parser';
import type { TextEdit } from '../../server/src/analysis/rules/types';

export const SCRIPTS = path.join(__dirname, '..', 'fixtures', 'scripts');

export function fixture(name: string): { file: string; text: string } {
  const file = path.join(SCRIPTS, name);
  return { file, text: readFileSync(file, 'utf8') };
}

/** Analyzes `text` as if it were `file` (so relative config paths resolve beside the fixture). */
export async function analyzeText(file: string, text: string, device = 'H100-80GB'): Promise<AnalysisResult> {
  const doc = await ParsedDocument.create(languageForPath(file)!, text);
  try {
    return analyzeDocument(doc, file, resolveDevice(device));
  } finally {
    doc.dispose();
  }
}

export async function analyzeFixture(name: string, device?: string): Promise<AnalysisResult> {
  const { file, text } = fixture(name);
  return analyzeText(file, text, device);
}

function offsetOf(text: string, line: number, character: number): number {
  let offset = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return offset + character;
}

/** Applies non-overlapping edits (LSP semantics: all ranges refer to the original text). */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const resolved = edits
    .map((e) => ({ start: offsetOf(text, e.range.line, e.range.character), end: offsetOf(text, e.range.endLine, e.range.endCharacter), newText: e.newText }))
    .sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of resolved) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

/** Replaces the `default=` of argparse flag `--name` in a script (what passing it would do). */
export function withDefault(text: string, flag: string, value: number | string): string {
  const at = text.indexOf(`"--${flag}",`);
  if (at < 0) throw new Error(`no --${flag}`);
  const defAt = text.indexOf('default=', at);
  const end = text.indexOf(')', defAt);
  return text.slice(0, defAt) + `default=${typeof value === 'string' ? JSON.stringify(value) : value}` + text.slice(end);
}
