/**
 * Where runs go: the target picker of "Run Reproducer…", "Test Connection…" for ssh and Slurm
 * targets, and "Re-attach Run…" for a remote run the server lost (a dropped link, a closed window).
 */
import * as vscode from 'vscode';
import {
  ListRunsRequest,
  ListTargetsRequest,
  ReattachRunRequest,
  TestConnectionRequest,
  type ConnectionReport,
} from '../../../server/src/protocol';
import type { CtxInit } from '../ctx';

function targetKind(id: string): string {
  if (id === 'local') return 'this machine';
  if (id.startsWith('ssh:')) return 'SSH host';
  return 'Slurm partition';
}

/** Asks where to run. Without remote targets the answer is `local`, and nothing is asked. */
export async function pickTarget(c: CtxInit, options: { remoteOnly?: boolean } = {}): Promise<string | undefined> {
  const offered = await c.client.sendRequest(ListTargetsRequest.type);
  const targets = offered.filter((t) => !options.remoteOnly || t !== 'local');
  if (targets.length === 0) {
    void vscode.window.showInformationMessage(
      'Headroom: no remote targets. Add hosts to ~/.ssh/config, or ssh:HOST / slurm:PARTITION entries to ~/.config/headroom/targets.json.',
    );
    return undefined;
  }
  if (!options.remoteOnly && targets.length === 1) return targets[0];
  const picked = await vscode.window.showQuickPick(
    targets.map((t) => ({ label: t, description: targetKind(t) })),
    { title: options.remoteOnly ? 'Headroom: test a connection' : 'Headroom: where should it run?', placeHolder: 'Target' },
  );
  return picked?.label;
}

/** One line for a notification: what the target offers. */
export function describeConnection(report: ConnectionReport): string {
  const e = report.environment;
  const torch = e.torchVersion !== undefined ? `torch ${e.torchVersion}` : `no torch (${report.torchError ?? 'not importable'})`;
  const devices = e.devices.length > 0 ? `${e.devices.length} device(s): ${e.devices.map((d) => d.name).join(', ')}` : 'no accelerator';
  return (
    `${report.target} (${e.hostname}): Python ${e.pythonVersion}, ${torch}, ${e.platform}, ${devices}; ` +
    `backends ${e.distributedBackends.join(', ') || 'none'}; C compiler ${e.compiler !== undefined ? 'present' : 'absent'}`
  );
}

export async function testConnection(c: CtxInit, given?: unknown): Promise<void> {
  const target = typeof given === 'string' ? given : await pickTarget(c, { remoteOnly: true });
  if (!target) return;
  const report = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Headroom: testing ${target}…` },
    () => c.client.sendRequest(TestConnectionRequest.type, { target }),
  );
  const line = describeConnection(report);
  c.log.info(`Test connection: ${line} (${report.seconds.toFixed(1)} s)`);
  void vscode.window.showInformationMessage(`Headroom: ${line}`);
}

/** Re-attaches to an interrupted remote run (the given one, or one the user picks) and opens its result. */
export async function reattachRun(c: CtxInit, given: unknown, onDone: (runId: string) => Promise<void>): Promise<void> {
  let runId = typeof given === 'string' ? given : (given as { runId?: string } | undefined)?.runId;
  if (!runId) {
    const runs = (await c.client.sendRequest(ListRunsRequest.type)).filter((r) => r.status === 'interrupted' && r.target !== 'local');
    if (runs.length === 0) {
      void vscode.window.showInformationMessage('Headroom: no interrupted remote run to re-attach to.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      runs.map((r) => ({ label: r.runId, description: `${r.probe} on ${r.target}`, detail: r.message })),
      { title: 'Headroom: re-attach to a run' },
    );
    runId = picked?.label;
  }
  if (!runId) return;
  const id = runId;
  const run = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Headroom: re-attached to ${id}, waiting for it to end on its host…` },
    () => c.client.sendRequest(ReattachRunRequest.type, { runId: id }),
  );
  await onDone(id);
  if (run.status !== 'finished') void vscode.window.showWarningMessage(`Headroom run ${run.status}${run.message ? `: ${run.message}` : ''}`);
}
