import * as vscode from 'vscode';
import {
  CancelRemoteRunRequest,
  CancelRunRequest,
  GetRunRequest,
  ListProbesRequest,
  RunProgressNotification,
  StartRunRequest,
  type RunProgressParams,
} from '../../../server/src/protocol';
import type { CtxInit } from '../ctx';
import { ResultsPanel } from '../panels/resultsPanel';
import { pickTarget } from './targets';

/** Asks for a probe, its variants and repeats, starts the run, and follows it with a cancellable progress. */
export async function startRun(c: CtxInit, onChange: () => void): Promise<void> {
  const probes = await c.client.sendRequest(ListProbesRequest.type);
  const probe = await vscode.window.showQuickPick(
    probes.map((p) => ({
      label: p.id,
      description: `${p.title}${p.seed !== '-' ? ` (seed ${p.seed})` : ''}`,
      detail: `variants: ${p.variants.join(', ')}${p.needsGpu ? ' · needs a GPU' : ''} · ${p.minRanks} rank(s) minimum`,
      probe: p,
    })),
    { title: 'Headroom: run a reproducer', placeHolder: 'Which failure class?' },
  );
  if (!probe) return;
  const variants = await vscode.window.showQuickPick(
    probe.probe.variants.map((v) => ({ label: v, picked: true })),
    { title: `${probe.label}: variants`, canPickMany: true },
  );
  if (!variants || variants.length === 0) return;
  const repeatsText = await vscode.window.showInputBox({
    title: `${probe.label}: repeats per variant`,
    value: '1',
    validateInput: (v) => (/^[1-9]\d{0,2}$/.test(v.trim()) ? undefined : 'A whole number from 1 to 999'),
  });
  if (!repeatsText) return;
  const target = await pickTarget(c);
  if (!target) return;
  const { runId } = await c.client.sendRequest(StartRunRequest.type, {
    probe: probe.label,
    target,
    variants: variants.map((v) => v.label),
    repeats: Number(repeatsText.trim()),
  });
  onChange();
  await followRun(c, runId, onChange);
}

/** Shows progress until the run ends; the notification's cancel button cancels the run on the target. */
function followRun(c: CtxInit, runId: string, onChange: () => void): Thenable<void> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Headroom run', cancellable: true },
    (progress, token) =>
      new Promise<void>((resolve) => {
        const cancel = token.onCancellationRequested(() => void c.client.sendRequest(CancelRunRequest.type, { runId }));
        const sub = c.client.onNotification(RunProgressNotification.type, (p: RunProgressParams) => {
          if (p.runId !== runId) return;
          const s = p.state;
          switch (s.tag) {
            case 'started':
              progress.report({ message: `${s.probe} on ${s.target}: ${s.cellsPlanned} cells` });
              break;
            case 'environment':
              progress.report({ message: `${s.environment.hostname}: ${s.environment.platform}, torch ${s.environment.torchVersion ?? 'absent'}` });
              break;
            case 'cell-started':
              progress.report({ message: `${s.variant} #${s.repeat}` });
              break;
            case 'cell-finished':
              progress.report({ message: `${s.cell.variant} #${s.cell.repeat}: ${s.cell.outcome}`, increment: 100 / s.cellsPlanned });
              onChange();
              void openRun(c, runId);
              break;
            case 'ended':
              sub.dispose();
              cancel.dispose();
              onChange();
              void openRun(c, runId);
              if (s.status !== 'finished') void vscode.window.showWarningMessage(`Headroom run ${s.status}${s.message ? `: ${s.message}` : ''}`);
              resolve();
              break;
          }
        });
      }),
  );
}

/** Opens a stored run's outcome matrix in the results panel. */
export async function openRun(c: CtxInit, runId: unknown): Promise<void> {
  if (typeof runId !== 'string') return;
  const run = await c.client.sendRequest(GetRunRequest.type, { runId });
  ResultsPanel.show(c.extCtx.extensionUri, { view: 'run', run });
}

function runIdOf(item: unknown): string | undefined {
  return typeof item === 'string' ? item : (item as { runId?: string } | undefined)?.runId;
}

export async function cancelRun(c: CtxInit, item: unknown): Promise<void> {
  const runId = runIdOf(item);
  if (runId) await c.client.sendRequest(CancelRunRequest.type, { runId });
}

/** Kills an interrupted remote run on its host (and scancels its Slurm job), then shows the record. */
export async function cancelRemoteRun(c: CtxInit, item: unknown): Promise<void> {
  const runId = runIdOf(item);
  if (!runId) return;
  const run = await c.client.sendRequest(CancelRemoteRunRequest.type, { runId });
  ResultsPanel.show(c.extCtx.extensionUri, { view: 'run', run });
}
