/**
 * The Headroom language server: one Node process speaking LSP over IPC to the extension. It owns
 * all logic; feature modules register their handlers here, one line each.
 */
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  createConnection,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import * as analysis from './analysis/lsp';
import type { CodeActionProvider, ServerContext } from './context';
import { DiagnosticsStore } from './diagnostics';
import { ServerStatusNotification, type ServerStatusParams } from './protocol';
import * as replay from './replay/lsp';
import * as runs from './runs/lsp';
import * as remoteTargets from './runs/remote/lsp';
import { normalizeSettings, type HeadroomSettings } from './settings';
import * as triage from './triage/lsp';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
const diagnostics = new DiagnosticsStore((uri, diags) => void connection.sendDiagnostics({ uri, diagnostics: diags }));

const settingsCache = new Map<string, Promise<HeadroomSettings>>();
const settingsListeners: Array<() => void> = [];
const codeActionProviders: CodeActionProvider[] = [];
let folders: string[] = [];
let pullConfiguration = false;
let busyCount = 0;
let lastError: string | undefined;

function sendStatus(): void {
  const status: ServerStatusParams = {
    health: lastError === undefined ? 'ok' : 'error',
    quiescent: busyCount === 0,
    ...(lastError !== undefined && { message: lastError }),
  };
  void connection.sendNotification(ServerStatusNotification.type, status);
}

const ctx: ServerContext = {
  connection,
  documents,
  diagnostics,
  settingsFor(uri) {
    if (!pullConfiguration) return Promise.resolve(normalizeSettings(undefined));
    let cached = settingsCache.get(uri);
    if (!cached) {
      cached = connection.workspace
        .getConfiguration({ scopeUri: uri, section: 'headroom' })
        .then(normalizeSettings, () => normalizeSettings(undefined));
      settingsCache.set(uri, cached);
    }
    return cached;
  },
  onSettingsChanged(listener) {
    settingsListeners.push(listener);
  },
  addCodeActionProvider(provider) {
    codeActionProviders.push(provider);
  },
  workspaceFolders: () => folders,
  async track(label, work) {
    busyCount++;
    sendStatus();
    try {
      const result = await work();
      lastError = undefined;
      return result;
    } catch (err) {
      lastError = `${label}: ${err instanceof Error ? err.message : String(err)}`;
      connection.console.error(lastError);
      throw err;
    } finally {
      busyCount--;
      sendStatus();
    }
  },
};

connection.onInitialize((params): InitializeResult => {
  pullConfiguration = params.capabilities.workspace?.configuration === true;
  folders = (params.workspaceFolders ?? []).map((f) => fileURLToPath(f.uri));
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      // Analysis of training scripts: quick fixes, the plan hover and the plan CodeLens.
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      hoverProvider: true,
      codeLensProvider: { resolveProvider: false },
    },
    serverInfo: { name: 'headroom' },
  };
});

connection.onInitialized(() => {
  if (pullConfiguration) void connection.client.register(DidChangeConfigurationNotification.type, undefined);
  connection.console.info(`Headroom server ready (workspace folders: ${folders.join(', ') || 'none'}).`);
  sendStatus();
});

connection.onDidChangeConfiguration(() => {
  settingsCache.clear();
  for (const listener of settingsListeners) listener();
});

documents.onDidClose((e) => settingsCache.delete(e.document.uri));

connection.onCodeAction((params) => codeActionProviders.flatMap((provide) => provide(params)));

triage.register(ctx);
analysis.register(ctx);
replay.register(ctx);
runs.register(ctx);
remoteTargets.register(ctx);

documents.listen(connection);
connection.listen();
