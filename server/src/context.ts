import type { CodeAction, CodeActionParams, Connection, TextDocuments } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { DiagnosticsStore } from './diagnostics';
import type { HeadroomSettings } from './settings';

/** Code actions of one feature for a request; features' actions are concatenated. */
export type CodeActionProvider = (params: CodeActionParams) => CodeAction[];

/** What every feature module's `register()` receives from the server. */
export interface ServerContext {
  readonly connection: Connection;
  readonly documents: TextDocuments<TextDocument>;
  readonly diagnostics: DiagnosticsStore;
  /** Settings for a resource, pulled from the client and cached per URI until they change. */
  settingsFor(uri: string): Promise<HeadroomSettings>;
  /** Calls `listener` after the client reports a configuration change (caches already cleared). */
  onSettingsChanged(listener: () => void): void;
  /**
   * Adds a feature's quick fixes. LSP allows one `textDocument/codeAction` handler per server, so
   * the server owns it and asks every provider.
   */
  addCodeActionProvider(provider: CodeActionProvider): void;
  /** Workspace folder paths on disk (for mapping traceback paths to workspace files). */
  workspaceFolders(): readonly string[];
  /**
   * Runs `work` while the server reports itself busy; status goes back to quiescent when every
   * tracked task has settled. Errors are logged, reported as health `error`, and rethrown.
   */
  track<T>(label: string, work: () => Promise<T>): Promise<T>;
}
