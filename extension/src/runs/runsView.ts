import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { ListRunsRequest, SlurmJobRequest, type RunRecord, type RunStatus, type SlurmJobState } from '../../../server/src/protocol';

type RunSummary = Omit<RunRecord, 'cells'> & { cellCount: number; job?: SlurmJobState };

const SLURM_POLL_MS = 10_000;

/** "pending (#2 in queue: Priority)", "running on node7": a Slurm run's job as squeue sees it. */
function describeJob(job: SlurmJobState): string | undefined {
  switch (job.tag) {
    case 'pending':
      return `job ${job.jobId} pending${job.queuePosition !== null ? ` (#${job.queuePosition} in queue` : ' ('}${job.reason ? `: ${job.reason}` : ''})`;
    case 'running':
      return `job ${job.jobId} running on ${job.node}`;
    case 'ended':
      return `job ${job.jobId} ${job.state.toLowerCase()}`;
    case 'unknown':
      return undefined;
  }
}

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
  private jobPoll: NodeJS.Timeout | undefined;

  setClient(client: LanguageClient | undefined): void {
    this.client = client;
    this.refresh();
  }

  refresh(): void {
    this.changed.fire();
  }

  async getChildren(element?: RunSummary): Promise<RunSummary[]> {
    const client = this.client;
    if (element || !client) return [];
    const runs: RunSummary[] = await client.sendRequest(ListRunsRequest.type);
    // Slurm runs that have not ended show their job's state and queue position.
    await Promise.all(
      runs
        .filter((r) => r.target.startsWith('slurm:') && (r.status === 'running' || r.status === 'interrupted'))
        .map(async (r) => {
          r.job = await client.sendRequest(SlurmJobRequest.type, { runId: r.runId }).catch(() => undefined);
        }),
    );
    // squeue is the only source of queue movement: look again while a job waits or runs.
    clearTimeout(this.jobPoll);
    if (runs.some((r) => r.job?.tag === 'pending' || r.job?.tag === 'running')) this.jobPoll = setTimeout(() => this.refresh(), SLURM_POLL_MS);
    return runs;
  }

  getTreeItem(run: RunSummary): vscode.TreeItem {
    const item = new vscode.TreeItem(`${run.probe} · ${run.target}`, vscode.TreeItemCollapsibleState.None);
    item.id = run.runId;
    const job = run.job && describeJob(run.job);
    item.description = `${run.status}${job ? ` · ${job}` : ''} · ${run.cellCount}/${run.variants.length * run.repeats} cells · ${new Date(run.startedAt).toLocaleString()}`;
    item.tooltip = run.message ?? run.runId;
    item.iconPath = new vscode.ThemeIcon(STATUS_ICON[run.status]);
    // Interrupted remote runs go on on their host: they can be re-attached to or cancelled there.
    item.contextValue =
      run.status === 'running' ? 'headroom.run.running' : run.status === 'interrupted' && run.target !== 'local' ? 'headroom.run.interrupted' : 'headroom.run';
    item.command = { command: 'headroom.openRun', title: 'Open Run', arguments: [run.runId] };
    return item;
  }

  dispose(): void {
    clearTimeout(this.jobPoll);
    this.changed.dispose();
  }
}
