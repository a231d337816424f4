/**
 * Headroom's extension entry: activate() and the command table. Everything that thinks lives in
 * the server; commands here ask it, then show the answer.
 */
import * as vscode from 'vscode';
import { TriageRequest, type TriageParams } from '../../server/src/protocol';
import { Ctx, type CommandFactory, type CtxInit } from './ctx';
import { ResultsPanel } from './panels/resultsPanel';
import { openSnapshot, replayAtCapacity } from './replay';
import { pickFile, reportErrors } from './ui';
import { cancelRemoteRun, cancelRun, openRun, startRun } from './runs/commands';
import { RunsTreeProvider } from './runs/runsView';
import { reattachRun, testConnection } from './runs/targets';

let ctx: Ctx | undefined;
const runsTree = new RunsTreeProvider();

export async function activate(extCtx: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('Headroom', { log: true });
  extCtx.subscriptions.push(log);
  ctx = new Ctx(extCtx, log, createCommands());
  ctx.pushExtCleanup(runsTree);
  ctx.pushExtCleanup(vscode.window.registerTreeDataProvider('headroom.runs', runsTree));
  ctx.pushExtCleanup(ctx.onDidChangeClient((client) => runsTree.setClient(client)));
  ctx.pushExtCleanup(
    ResultsPanel.onRequest(async (m) => {
      const c = ctx?.client ? (ctx as CtxInit) : undefined;
      if (!c) return undefined;
      try {
        return await replayAtCapacity(c, m.file, m.capacityBytes);
      } catch (err) {
        void vscode.window.showErrorMessage(`Headroom: ${err instanceof Error ? err.message : String(err)}`);
        return undefined;
      }
    }),
  );
  ctx.pushExtCleanup(
    vscode.window.registerWebviewPanelSerializer(ResultsPanel.viewType, {
      deserializeWebviewPanel: async (panel) => ResultsPanel.revive(panel, extCtx.extensionUri),
    }),
  );
  log.info(`Headroom ${String(extCtx.extension.packageJSON['version'])} activating; settings: ${JSON.stringify(vscode.workspace.getConfiguration('headroom'))}`);
  try {
    await ctx.start();
  } catch (err) {
    // VS Code does not tell the user when activation fails; say it ourselves.
    log.error(`Headroom failed to start: ${String(err)}`);
    void vscode.window.showErrorMessage(`Headroom failed to start: ${err instanceof Error ? err.message : String(err)}`, 'Show Log').then((choice) => {
      if (choice) log.show();
    });
  }
}

export async function deactivate(): Promise<void> {
  await ctx?.stop();
  ctx?.dispose();
  ctx = undefined;
}

function createCommands(): Record<string, CommandFactory> {
  return {
    triageLog: { enabled: (c) => (uri?: unknown) => triageLog(c, uri) },
    triageSelection: { enabled: (c) => () => triageSelection(c) },
    openSnapshot: { enabled: (c) => (uri?: unknown) => reportErrors(c, () => openSnapshot(c, uri)) },
    startRun: { enabled: (c) => () => reportErrors(c, () => startRun(c, () => runsTree.refresh())) },
    openRun: { enabled: (c) => (runId?: unknown) => reportErrors(c, () => openRun(c, runId)) },
    cancelRun: { enabled: (c) => (item?: unknown) => reportErrors(c, () => cancelRun(c, item)) },
    refreshRuns: { enabled: () => () => runsTree.refresh() },
    testConnection: { enabled: (c) => (target?: unknown) => reportErrors(c, () => testConnection(c, target)) },
    reattachRun: {
      enabled: (c) => (item?: unknown) =>
        reportErrors(c, () =>
          reattachRun(c, item, async (runId) => {
            runsTree.refresh();
            await openRun(c, runId);
          }),
        ),
    },
    cancelRemoteRun: { enabled: (c) => (item?: unknown) => reportErrors(c, () => cancelRemoteRun(c, item).then(() => runsTree.refresh())) },
    restartServer: {
      enabled: (c) => () => c.restart(),
      disabled: (c) => () => c.restart(),
    },
    showLog: {
      enabled: (c) => () => c.log.show(),
      disabled: (c) => () => c.log.show(),
    },
  };
}

async function runTriage(c: CtxInit, params: TriageParams): Promise<void> {
  const report = await c.client.sendRequest(TriageRequest.type, params);
  c.log.info(`Triage of ${report.source}: ${report.verdicts.map((v) => v.kind).join(', ') || 'nothing recognized'}`);
  ResultsPanel.show(c.extCtx.extensionUri, { view: 'triage', report });
}

async function triageLog(c: CtxInit, given: unknown): Promise<void> {
  const uri = await pickFile(given, 'Triage a log', { 'Logs': ['log', 'txt', 'out', 'err'], 'All files': ['*'] });
  if (!uri) return;
  await reportErrors(c, () => runTriage(c, { uri: uri.toString() }));
}

async function triageSelection(c: CtxInit): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  let text = editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : undefined;
  let label = editor ? `selection in ${vscode.workspace.asRelativePath(editor.document.uri)}` : 'selection';
  if (text === undefined && vscode.window.activeTerminal) {
    // The terminal's selection is only reachable through the clipboard.
    await vscode.commands.executeCommand('workbench.action.terminal.copySelection');
    text = await vscode.env.clipboard.readText();
    label = `terminal ${vscode.window.activeTerminal.name}`;
  }
  if (!text) {
    void vscode.window.showInformationMessage('Select the log text to triage in an editor or a terminal first.');
    return;
  }
  await reportErrors(c, () => runTriage(c, { text, label }));
}
