import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { ServerContext } from '../context';
import { docsUri } from '../docs';
import { TriageRequest, type TriageReport, type Verdict } from '../protocol';
import { triageFile, triageText } from './index';
import { triageCodeActions, type TriageFixData } from './codeActions';
import { mapFramesToWorkspace } from './workspaceFrames';

const DIAGNOSTIC_SOURCE = 'triage';

export function register(ctx: ServerContext): void {
  ctx.addCodeActionProvider((params) =>
    triageCodeActions(params.context.diagnostics, (uri) => {
      const open = ctx.documents.get(uri);
      if (open) return open.getText();
      try {
        return readFileSync(fileURLToPath(uri), 'utf8');
      } catch {
        return undefined;
      }
    }),
  );
  ctx.connection.onRequest(TriageRequest.type, (params) =>
    ctx.track('triage', async () => {
      let report: TriageReport;
      if (params.text !== undefined) {
        report = triageText(params.text, params.label ?? 'selection');
      } else {
        if (params.uri === undefined) throw new Error('Triage needs either text or a file URI.');
        const filePath = params.uri.startsWith('file:') ? fileURLToPath(params.uri) : params.uri;
        report = await triageFile(filePath);
      }
      const mapped: TriageReport = {
        ...report,
        verdicts: report.verdicts.map((v) => ({ ...v, userFrames: mapFramesToWorkspace(v.userFrames, ctx.workspaceFolders()) })),
      };
      publishFrameDiagnostics(ctx, mapped);
      return mapped;
    }),
  );
}

/**
 * One diagnostic per verdict at its innermost user frame in the workspace (an error), and a hint
 * at each outer frame so the call path is visible. A new triage replaces the previous one's.
 */
function publishFrameDiagnostics(ctx: ServerContext, report: TriageReport): void {
  ctx.diagnostics.clearSource(DIAGNOSTIC_SOURCE);
  const byUri = new Map<string, Diagnostic[]>();
  for (const verdict of report.verdicts) {
    const data = fixData(verdict);
    verdict.userFrames.forEach((frame, depth) => {
      if (!frame.workspaceUri) return;
      const line = Math.max(0, frame.line - 1);
      const diagnostic: Diagnostic = {
        range: { start: { line, character: 0 }, end: { line, character: Number.MAX_SAFE_INTEGER } },
        severity: depth === 0 ? DiagnosticSeverity.Error : DiagnosticSeverity.Hint,
        source: 'Headroom',
        code: verdict.kind,
        codeDescription: { href: docsUri('TRIAGE.md', verdict.kind) },
        message: depth === 0 ? `${verdict.summary}. ${verdict.fixes[0] ? `Fix: ${verdict.fixes[0].title}.` : ''}`.trim() : `Called on the path to: ${verdict.summary}`,
        ...(data && { data }),
      };
      const list = byUri.get(frame.workspaceUri) ?? [];
      list.push(diagnostic);
      byUri.set(frame.workspaceUri, list);
    });
  }
  for (const [uri, diagnostics] of byUri) ctx.diagnostics.set(DIAGNOSTIC_SOURCE, uri, diagnostics);
}

const ALLOCATOR_OPTION = /^export (PYTORCH_\w+_ALLOC_CONF)=(expandable_segments:True)$/;

/**
 * The code fix a verdict offers, if any: a fragmentation verdict's allocator option, written into
 * the outermost user frame's file (the entry script, where it runs before torch is imported).
 */
function fixData(verdict: Verdict): TriageFixData | undefined {
  if (verdict.kind !== 'fragmentation') return undefined;
  const option = verdict.fixes.map((f) => ALLOCATOR_OPTION.exec(f.snippet ?? '')).find((m) => m !== null);
  const entry = [...verdict.userFrames].reverse().find((f) => f.workspaceUri !== undefined);
  if (!option || !entry?.workspaceUri) return undefined;
  return { fix: 'allocator-option', envVar: option[1]!, value: option[2]!, targetUri: entry.workspaceUri };
}
