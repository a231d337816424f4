import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ListRunsRequest, type RunRecord, type RunStatus } from '../../../server/src/protocol';

type RunSummary = Omit<RunRecord, 'cells'> & { cellCount: number };

const STATUS_ICON: Record<RunStatus, string> = {
  running: 'loading~spin',
  finished: 'pass',
  interrupted: 'debug-disconnect',
  cancelled: 'circle-slash',
};

/** The "Runs" tree: every stored run, newest first; a click opens its outcome matrix. */
export class RunsTreeProvider implements vscode.TreeDataProvider<RunSummary> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private client: LanguageClient | undefined;

  setClient(client: LanguageClient | undefined): void {
    this.client = client;
    this.refresh();
  }

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(element?: RunSummary): Promise<RunSummary[]> {
    if (element || !this.client) return [];
    return this.client.sendRequest(ListRunsRequest.type);
  }

  getTreeItem(run: RunSummary): vscode.TreeItem {
    const item = new vscode.TreeItem(`${run.probe} · ${run.target}`, vscode.TreeItemCollapsibleState.None);
    item.id = run.runId;
    item.description = `${run.status} · ${run.cellCount}/${run.variants.length * run.repeats} cells · ${new Date(run.startedAt).toLocaleString()}`;
    item.tooltip = run.message ?? run.runId;
    item.iconPath = new vscode.ThemeIcon(STATUS_ICON[run.status]);
    // Interrupted remote runs go on on their host: they can be re-attached to or cancelled there.
    item.contextValue =
      run.status === 'running' ? 'headroom.run.running' : run.status === 'interrupted' && run.target !== 'local' ? 'headroom.run.interrupted' : 'headroom.run';
    item.command = { command: 'headroom.openRun', title: 'Open Run', arguments: [run.runId] };
    return item;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
