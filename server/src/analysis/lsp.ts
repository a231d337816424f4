/**
 * The analysis feature on the LSP side: every open Python or C++/CUDA document is parsed once and
 * reparsed incrementally on each edit; its findings become diagnostics (rule id as the code, a
 * link to docs/rules/HR0xx.md), their fixes quick fixes, and the memory plan a CodeLens on the
 * model line and a hover with the breakdown table.
 */
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  DiagnosticSeverity,
  MarkupKind,
  type CodeAction,
  type CodeLens,
  type Diagnostic,
  type Hover,
  type Range,
} from 'vscode-languageserver';
import type { ServerContext } from '../context';
import { findDevice, type DeviceSpec } from '../devices/catalog';
import { docsUri } from '../docs';
import { formatBytes } from '../format';
import { defaultSettings } from '../settings';
import { analyzeDocument, type AnalysisResult } from './analyze';
import { languageForPath, ParsedDocument } from './parser';
import type { MemoryPlan } from './plan';
import type { Loc } from './pyindex';
import type { Finding } from './rules/types';

const SOURCE = 'analysis';

interface OpenDocument {
  parsed: ParsedDocument;
  version: number;
  result?: AnalysisResult;
}

export function toRange(loc: Loc): Range {
  return { start: { line: loc.line, character: loc.character }, end: { line: loc.endLine, character: loc.endCharacter } };
}

const SEVERITY: Record<Finding['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
};

export function toDiagnostic(finding: Finding): Diagnostic {
  return {
    range: toRange(finding.loc),
    severity: SEVERITY[finding.severity],
    source: 'Headroom',
    code: finding.rule,
    codeDescription: { href: docsUri(`rules/${finding.rule}.md`) },
    message: finding.fix ? `${finding.message} Fix: ${finding.fix}` : finding.message,
  };
}

/** "~37.20 GiB/card of 47.50 GiB (RNGD), 78%" */
export function lensTitle(plan: MemoryPlan): string {
  const pct = Math.round((plan.perCardBytes / plan.device.capacityBytes) * 100);
  return `~${formatBytes(plan.perCardBytes)}/card of ${formatBytes(plan.device.capacityBytes)} (${plan.device.name}), ${pct}%`;
}

/** The hover: the breakdown table at the peak phase, then the assumptions. */
export function planMarkdown(plan: MemoryPlan): string {
  const rows = plan.breakdown.map((it) => `| ${it.label} | ${formatBytes(it.bytes)} | ${it.note.split('|').join('/')} |`);
  const lines = [
    `**Headroom memory plan** for ${plan.device.name} (${formatBytes(plan.device.capacityBytes)}${plan.device.nominal ? ', nominal' : ''})`,
    '',
    '| term | per card | how |',
    '| --- | --- | --- |',
    ...rows,
    `| **total** | **${formatBytes(plan.perCardBytes)}** | peak at the ${plan.peakPhase}; allocated by the framework: ${formatBytes(plan.allocatedPeakBytes)} |`,
    '',
    `${(plan.params / 1e9).toFixed(2)}B parameters, ${(plan.trainableParams / 1e9).toFixed(2)}B trainable.`,
  ];
  if (plan.assumptions.length > 0) lines.push('', 'Assumed: ' + plan.assumptions.join('; ') + '.');
  return lines.join('\n');
}

function sameRange(a: Range, b: Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

export function register(ctx: ServerContext): void {
  const open = new Map<string, OpenDocument>();
  const creating = new Map<string, Promise<void>>();
  const warnedDevices = new Set<string>();

  const deviceFor = async (uri: string): Promise<DeviceSpec> => {
    const name = (await ctx.settingsFor(uri)).device;
    const device = findDevice(name);
    if (device) return device;
    if (!warnedDevices.has(name)) {
      warnedDevices.add(name);
      ctx.connection.console.warn(`headroom.device "${name}" is not in the device catalog; planning for ${defaultSettings.device}.`);
    }
    return findDevice(defaultSettings.device)!;
  };

  // The latest analysis of each document while it runs: CodeLens and hover requests wait for it,
  // because VS Code asks for a document's lenses once when it opens, often before its first
  // analysis is done, and would otherwise show none until the next edit.
  const running = new Map<string, Promise<void>>();
  const settled = async (uri: string): Promise<void> => {
    await running.get(uri)?.catch(() => undefined);
  };

  const analyze = (uri: string, text: string, version: number): Promise<void> => {
    const run = analyzeNow(uri, text, version);
    running.set(uri, run);
    const forget = (): void => {
      if (running.get(uri) === run) running.delete(uri);
    };
    run.then(forget, forget);
    return run;
  };

  const analyzeNow = (uri: string, text: string, version: number): Promise<void> =>
    ctx.track('analysis', async () => {
      const filePath = uri.startsWith('file:') ? fileURLToPath(uri) : uri;
      const language = languageForPath(filePath);
      if (!language) return;
      // Two quick edits can both arrive before the first parse finishes: share its promise.
      let pending = creating.get(uri);
      if (!open.has(uri) && !pending) {
        pending = ParsedDocument.create(language, text).then((parsed) => {
          open.set(uri, { parsed, version });
          creating.delete(uri);
        });
        creating.set(uri, pending);
      }
      if (pending) await pending;
      const entry = open.get(uri);
      if (!entry) return;
      entry.parsed.update(text);
      entry.version = version;
      const device = await deviceFor(uri);
      // A newer edit may have arrived while the settings were fetched; its own run publishes.
      if (open.get(uri)?.version !== version) return;
      entry.result = analyzeDocument(entry.parsed, filePath, device);
      ctx.diagnostics.set(SOURCE, uri, entry.result.findings.map(toDiagnostic));
    });

  ctx.documents.onDidChangeContent((e) => {
    void analyze(e.document.uri, e.document.getText(), e.document.version).catch(() => undefined);
  });
  ctx.documents.onDidClose((e) => {
    open.get(e.document.uri)?.parsed.dispose();
    open.delete(e.document.uri);
    ctx.diagnostics.set(SOURCE, e.document.uri, []);
  });
  ctx.onSettingsChanged(() => {
    for (const [uri, entry] of open) void analyze(uri, entry.parsed.text, entry.version).catch(() => undefined);
  });

  ctx.addCodeActionProvider((params): CodeAction[] => {
    const result = open.get(params.textDocument.uri)?.result;
    if (!result) return [];
    const actions: CodeAction[] = [];
    for (const diagnostic of params.context.diagnostics) {
      if (diagnostic.source !== 'Headroom' || typeof diagnostic.code !== 'string') continue;
      const finding = result.findings.find((f) => f.rule === diagnostic.code && sameRange(toRange(f.loc), diagnostic.range));
      if (!finding?.codeFix) continue;
      actions.push({
        title: `${finding.rule}: ${finding.codeFix.title}`,
        kind: CodeActionKind.QuickFix,
        diagnostics: [diagnostic],
        isPreferred: true,
        edit: { changes: { [params.textDocument.uri]: finding.codeFix.edits.map((e) => ({ range: toRange(e.range), newText: e.newText })) } },
      });
    }
    return actions;
  });

  ctx.connection.onCodeLens(async (params): Promise<CodeLens[]> => {
    await settled(params.textDocument.uri);
    const plan = open.get(params.textDocument.uri)?.result?.plan;
    if (!plan) return [];
    return [{ range: { start: { line: plan.line, character: 0 }, end: { line: plan.line, character: 0 } }, command: { title: lensTitle(plan), command: '' } }];
  });

  ctx.connection.onHover(async (params): Promise<Hover | null> => {
    await settled(params.textDocument.uri);
    const plan = open.get(params.textDocument.uri)?.result?.plan;
    if (!plan || params.position.line !== plan.line) return null;
    return { contents: { kind: MarkupKind.Markdown, value: planMarkdown(plan) } };
  });
}
