/**
 * Quick fixes for triage diagnostics. A fragmentation verdict's fix is a code change the user can
 * take as is: set the allocator option in the entry script before torch is imported. The
 * diagnostic carries what the fix needs in `data` (see lsp.ts); this module turns it into edits.
 */
import { CodeActionKind, type CodeAction, type Diagnostic, type TextEdit } from 'vscode-languageserver';

/** Stored in `Diagnostic.data` of triage diagnostics that have a code fix. */
export interface TriageFixData {
  fix: 'allocator-option';
  /** PYTORCH_CUDA_ALLOC_CONF, PYTORCH_HIP_ALLOC_CONF or PYTORCH_NPU_ALLOC_CONF. */
  envVar: string;
  value: string;
  /** The file to edit: the outermost user frame (the entry script) in the workspace. */
  targetUri: string;
}

export function isTriageFixData(data: unknown): data is TriageFixData {
  const d = data as Partial<TriageFixData> | undefined;
  return d?.fix === 'allocator-option' && typeof d.envVar === 'string' && typeof d.value === 'string' && typeof d.targetUri === 'string';
}

/**
 * The line where module code may start: after a shebang, encoding and other leading comments, the
 * module docstring and `from __future__` imports (which must stay first).
 */
export function firstCodeLine(text: string): number {
  const lines = text.split(/\r?\n/);
  let i = 0;
  const skipBlankAndComments = (): void => {
    while (i < lines.length && (lines[i]!.trim() === '' || lines[i]!.trimStart().startsWith('#'))) i++;
  };
  skipBlankAndComments();
  const docstring = /^[rRbBuU]?("""|''')/.exec(lines[i]?.trimStart() ?? '');
  if (docstring) {
    const quote = docstring[1]!;
    const first = lines[i]!.trimStart().slice(docstring[0].length);
    if (first.includes(quote)) i++;
    else {
      i++;
      while (i < lines.length && !lines[i]!.includes(quote)) i++;
      i++;
    }
    skipBlankAndComments();
  }
  while (i < lines.length && /^from\s+__future__\s+import\b/.test(lines[i]!)) {
    // A parenthesised __future__ import may span lines.
    if (lines[i]!.includes('(') && !lines[i]!.includes(')')) while (i < lines.length && !lines[i]!.includes(')')) i++;
    i++;
  }
  return Math.min(i, lines.length);
}

/** The edit that sets the allocator option at the top of `text`, or undefined when it is already there. */
export function allocatorOptionEdit(text: string, envVar: string, value: string): TextEdit | undefined {
  if (text.includes(envVar) && text.includes(value.split(':')[0]!)) return undefined;
  const line = firstCodeLine(text);
  const newText =
    `import os\n\n# Headroom triage: ${envVar} must be set before torch initializes the device.\n` +
    `os.environ.setdefault(${JSON.stringify(envVar)}, ${JSON.stringify(value)})\n\n`;
  return { range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText };
}

/**
 * Code actions for the triage diagnostics among `diagnostics`. `readText` returns the current text
 * of a workspace file (an open document's buffer, or the file on disk).
 */
export function triageCodeActions(diagnostics: readonly Diagnostic[], readText: (uri: string) => string | undefined): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const diagnostic of diagnostics) {
    if (diagnostic.source !== 'Headroom' || !isTriageFixData(diagnostic.data)) continue;
    const { envVar, value, targetUri } = diagnostic.data;
    const text = readText(targetUri);
    if (text === undefined) continue;
    const edit = allocatorOptionEdit(text, envVar, value);
    if (!edit) continue;
    actions.push({
      title: `Set ${envVar}=${value} in ${targetUri.slice(targetUri.lastIndexOf('/') + 1)}`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [diagnostic],
      isPreferred: true,
      edit: { changes: { [targetUri]: [edit] } },
    });
  }
  return actions;
}
