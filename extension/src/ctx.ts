import * as vscode from 'vscode';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { ServerStatusNotification, type ServerStatusParams } from '../../server/src/protocol';
import { serverModulePath } from './bootstrap';
import { createClient } from './client';

/** A command in the table: `enabled` runs with a live client, `disabled` explains why it can't. */
export interface CommandFactory {
  enabled: (ctx: CtxInit) => (...args: unknown[]) => unknown;
  disabled?: (ctx: Ctx) => (...args: unknown[]) => unknown;
}

/** A context whose client is known to be running. */
export type CtxInit = Ctx & { readonly client: LanguageClient };

/**
 * The extension's lifecycle: owns the client, the status bar item and the two disposal buckets
 * (one for the extension's lifetime, one emptied every time the client stops).
 */
export class Ctx {
  private _client: LanguageClient | undefined;
  private readonly extCleanup: vscode.Disposable[] = [];
  private clientCleanup: vscode.Disposable[] = [];
  private commandDisposables: vscode.Disposable[] = [];
  private readonly statusBar: vscode.StatusBarItem;
  private lastStatus: ServerStatusParams = { health: 'ok', quiescent: false, message: 'starting' };
  private readonly clientChanged = new vscode.EventEmitter<LanguageClient | undefined>();
  /** Fires with the new client after a start, and with undefined after a stop. */
  readonly onDidChangeClient = this.clientChanged.event;

  constructor(
    readonly extCtx: vscode.ExtensionContext,
    readonly log: vscode.LogOutputChannel,
    private readonly commandFactories: Record<string, CommandFactory>,
  ) {
    this.statusBar = vscode.window.createStatusBarItem('headroom.status', vscode.StatusBarAlignment.Left);
    this.statusBar.name = 'Headroom';
    this.statusBar.command = 'headroom.showLog';
    this.pushExtCleanup(this.statusBar);
    this.pushExtCleanup(this.clientChanged);
    this.updateStatusBar();
    this.statusBar.show();
    this.updateCommands();
  }

  get client(): LanguageClient | undefined {
    return this._client;
  }

  pushExtCleanup(d: vscode.Disposable): void {
    this.extCleanup.push(d);
  }

  pushClientCleanup(d: vscode.Disposable): void {
    this.clientCleanup.push(d);
  }

  async start(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      this.setStatus({ health: 'warning', quiescent: true, message: 'Headroom is off in untrusted workspaces.' });
      return;
    }
    const storage = this.extCtx.storageUri ?? this.extCtx.globalStorageUri;
    const client = createClient(serverModulePath(this.extCtx.extensionPath), this.log, vscode.Uri.joinPath(storage, 'runs').fsPath);
    this._client = client;
    this.pushClientCleanup(client.onNotification(ServerStatusNotification.type, (status) => this.setStatus(status)));
    this.pushClientCleanup(
      client.onDidChangeState((e) => {
        if (e.newState === State.Stopped) this.setStatus({ health: 'error', quiescent: true, message: 'server stopped' });
      }),
    );
    this.log.info(`Starting the Headroom server (PATH=${process.env['PATH'] ?? ''}).`);
    try {
      await client.start();
    } catch (err) {
      this.setStatus({ health: 'error', quiescent: true, message: `server failed to start: ${String(err)}` });
      throw err;
    }
    this.updateCommands();
    this.clientChanged.fire(client);
  }

  async stop(): Promise<void> {
    const client = this._client;
    this._client = undefined;
    for (const d of this.clientCleanup.splice(0)) d.dispose();
    this.updateCommands();
    this.clientChanged.fire(undefined);
    // Bound shutdown: a wedged server must not keep the editor from reloading.
    if (client) await client.stop(2000).catch((err: unknown) => this.log.warn(`Stopping the server: ${String(err)}`));
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Re-registers every command with the variant that fits the client's state, so none ever vanish. */
  private updateCommands(): void {
    for (const d of this.commandDisposables.splice(0)) d.dispose();
    for (const [name, factory] of Object.entries(this.commandFactories)) {
      const ctxInit = this.isInit() ? this : undefined;
      const callback = ctxInit
        ? factory.enabled(ctxInit)
        : factory.disabled
          ? factory.disabled(this)
          : () => void vscode.window.showInformationMessage('The Headroom server is not running (see "Headroom: Show Log").');
      this.commandDisposables.push(vscode.commands.registerCommand(`headroom.${name}`, callback));
    }
  }

  private isInit(): this is CtxInit {
    return this._client !== undefined;
  }

  private setStatus(status: ServerStatusParams): void {
    this.lastStatus = status;
    this.updateStatusBar();
  }

  private updateStatusBar(): void {
    const s = this.lastStatus;
    const icon = s.health === 'error' ? '$(error)' : s.health === 'warning' ? '$(warning)' : s.quiescent ? '$(pulse)' : '$(loading~spin)';
    const state = s.health === 'ok' ? (s.quiescent ? 'ready' : 'working') : s.health;
    this.statusBar.text = `${icon} Headroom`;
    this.statusBar.tooltip = `Headroom: ${state}${s.message ? ` (${s.message})` : ''}`;
    this.statusBar.accessibilityInformation = { label: `Headroom ${state}` };
    this.statusBar.backgroundColor =
      s.health === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : s.health === 'warning' ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    for (const d of this.commandDisposables.splice(0)) d.dispose();
    for (const d of this.clientCleanup.splice(0)) d.dispose();
    for (const d of this.extCleanup.splice(0)) d.dispose();
  }
}
