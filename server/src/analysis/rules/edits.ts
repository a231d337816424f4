/** Source-edit helpers shared by the rules' quick fixes (indentation-aware, built from syntax nodes). */
import type { Node } from 'web-tree-sitter';
import type { Loc } from '../pyindex';
import type { TextEdit } from './types';

/** The statement that contains `node` directly inside a block (or the module / a C++ compound statement). */
export function statementOf(node: Node): Node {
  let current: Node = node;
  for (let p = node.parent; p; p = p.parent) {
    if (p.type === 'block' || p.type === 'module' || p.type === 'compound_statement' || p.type === 'translation_unit') return current;
    current = p;
  }
  return current;
}

let splitText: string | undefined;
let splitLines: string[] = [];

/** The lines of `text`, split once per text (many findings of one analysis ask about the same text). */
export function linesOf(text: string): string[] {
  if (text !== splitText) {
    splitText = text;
    splitLines = text.split('\n');
  }
  return splitLines;
}

/** The leading whitespace of the line `line` (0-based). */
export function indentOf(text: string, line: number): string {
  const content = linesOf(text)[line] ?? '';
  let end = 0;
  while (end < content.length && (content[end] === ' ' || content[end] === '\t')) end++;
  return content.slice(0, end);
}

function lineRange(startLine: number, endLine: number): Loc {
  return { line: startLine, character: 0, endLine, endCharacter: 0 };
}

/** Inserts `lines` (without indentation) before the line of `stmt`, at its indentation. */
export function insertBefore(text: string, stmt: Node, lines: string[]): TextEdit {
  const indent = indentOf(text, stmt.startPosition.row);
  return { range: lineRange(stmt.startPosition.row, stmt.startPosition.row), newText: lines.map((l) => indent + l + '\n').join('') };
}

/** Inserts `lines` after the last line of `stmt`, at `stmt`'s indentation. */
export function insertAfter(text: string, stmt: Node, lines: string[]): TextEdit {
  const indent = indentOf(text, stmt.startPosition.row);
  const after = stmt.endPosition.row + 1;
  const needsNewline = after >= linesOf(text).length;
  return { range: lineRange(after, after), newText: (needsNewline ? '\n' : '') + lines.map((l) => indent + l + '\n').join('') };
}

/** Wraps whole statement lines in `header` (e.g. `with LOCK:`), indenting them one level. */
export function wrapStatement(text: string, stmt: Node, header: string, unit = '    '): TextEdit {
  const lines = linesOf(text);
  const first = stmt.startPosition.row;
  const last = stmt.endPosition.row;
  const indent = indentOf(text, first);
  const body = lines.slice(first, last + 1).map((l) => (l.length > 0 ? unit + l : l));
  return { range: lineRange(first, last + 1), newText: `${indent}${header}\n${body.join('\n')}\n` };
}

/** The line after the module's last top-level import (0 when there is none). */
export function afterImportsLine(root: Node): number {
  let line = 0;
  for (const child of root.namedChildren) {
    if (child && (child.type === 'import_statement' || child.type === 'import_from_statement' || child.type === 'future_import_statement')) {
      line = child.endPosition.row + 1;
    }
  }
  return line;
}
