/**
 * The runs feature over LSP: `headroom/startRun` starts a run and answers with its id at once;
 * progress and output follow as notifications that each carry the runId. Runs are stored in
 * HEADROOM_RUNS_DIR (the extension points it at its workspace storage). Hang stacks and
 * tracebacks that reach workspace files become diagnostics at those lines.
 */
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { ServerContext } from '../context';
import {
  CancelRunRequest,
  GetRunRequest,
  ListProbesRequest,
  ListRunsRequest,
  RunOutputNotification,
  RunProgressNotification,
  StartRunRequest,
  type CellResult,
} from '../protocol';
import { listProbes, publicInfo } from './catalog';
import { RunManager, type RunListener } from './runner';
import { defaultStoreRoot, RunStore } from './store';

const DIAGNOSTIC_SOURCE = 'runs';

export function register(ctx: ServerContext): void {
  const manager = new RunManager(new RunStore(defaultStoreRoot()));
  const listener: RunListener = {
    progress(runId, state) {
      void ctx.connection.sendNotification(RunProgressNotification.type, { runId, state });
      if (state.tag === 'cell-finished') publishCellDiagnostics(ctx, state.cell);
    },
    output(params) {
      void ctx.connection.sendNotification(RunOutputNotification.type, params);
    },
  };

  ctx.connection.onRequest(ListProbesRequest.type, () => listProbes().map(publicInfo));
  ctx.connection.onRequest(ListRunsRequest.type, () => manager.store.list());
  ctx.connection.onRequest(GetRunRequest.type, (params) => manager.store.load(params.runId));
  ctx.connection.onRequest(CancelRunRequest.type, (params) => manager.cancel(params.runId));
  ctx.connection.onRequest(StartRunRequest.type, async (params) => {
    const settings = await ctx.settingsFor(ctx.workspaceFolders()[0] ?? '');
    const folders = ctx.workspaceFolders();
    const cwd = folders[0];
    const handle = await manager.start(
      { ...params, hangWindowSeconds: params.hangWindowSeconds ?? settings.hangWindowSeconds, python: settings.python, targets: settings.targets, workspaceFolders: folders, ...(cwd !== undefined && { cwd }) },
      listener,
    );
    // The server stays busy (not quiescent) until the run ends; its errors surface in the status.
    void ctx.track(`run ${handle.runId}`, () => handle.done).catch(() => undefined);
    return { runId: handle.runId };
  });
}

/** Error at the innermost workspace frame of each rank's stack, for cells that hung, aborted or failed. */
function publishCellDiagnostics(ctx: ServerContext, cell: CellResult): void {
  if (cell.outcome === 'completed') return;
  const byUri = new Map<string, Diagnostic[]>();
  for (const [rank, frames] of Object.entries(cell.frames ?? {})) {
    const mapped = frames.find((f) => f.workspaceUri !== undefined);
    if (!mapped?.workspaceUri) continue;
    const line = Math.max(0, mapped.line - 1);
    const diverged = cell.divergingRank !== undefined && String(cell.divergingRank) === rank;
    const list = byUri.get(mapped.workspaceUri) ?? [];
    list.push({
      range: { start: { line, character: 0 }, end: { line, character: Number.MAX_SAFE_INTEGER } },
      severity: DiagnosticSeverity.Error,
      source: 'Headroom',
      code: cell.outcome,
      message: `Rank ${rank} ${cell.outcome === 'hang' ? 'was stuck here' : 'stopped here'} (${cell.variant} #${cell.repeat}: ${cell.outcome}${diverged ? ', the diverging rank' : ''}). ${cell.evidence.find((e) => e.startsWith('rank ') && e.includes('never joined')) ?? ''}`.trim(),
    });
    byUri.set(mapped.workspaceUri, list);
  }
  for (const [uri, diagnostics] of byUri) ctx.diagnostics.set(DIAGNOSTIC_SOURCE, uri, diagnostics);
}
