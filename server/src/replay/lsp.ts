import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver';
import type { ServerContext } from '../context';
import { formatBytes } from '../format';
import {
  ReplaySnapshotRequest,
  SnapshotSummaryRequest,
  type ReplayPeakSiteInfo,
  type ReplaySnapshotParams,
  type ReplaySnapshotResult,
} from '../protocol';
import { isLibraryFrame } from '../triage/frames';
import { resolveWorkspaceFile } from '../triage/workspaceFrames';
import { toReplayJson } from './replay';
import { summarizeSnapshotFile } from './summary';
import { loadNative, type ReplayFrame, type ReplayReport, type ReplayVariantRequest } from '../../../native/index';

const DIAGNOSTIC_SOURCE = 'headroom-replay';
/** Call stacks reported per variant; the panel lists them and the top ones become line markers. */
const PEAK_SITES = 20;
const MARKED_SITES = 8;
/** How long a replay request waits for others on the same snapshot to share its decode. */
const BATCH_WINDOW_MS = 25;

function toPath(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
}

/**
 * The innermost user frame (outside the standard library, the framework and installed packages)
 * that maps to a workspace file. Snapshots are usually recorded on another machine or in a
 * container, so paths are matched by their trailing components, as triage does.
 */
export function workspaceSite(frames: readonly ReplayFrame[], folders: readonly string[]): ReplayPeakSiteInfo['workspaceSite'] {
  for (const f of frames) {
    if (isLibraryFrame({ file: f.filename, line: f.line, function: f.name })) continue;
    const file = resolveWorkspaceFile(f.filename, folders);
    if (file) return { uri: pathToFileURL(file).href, line: Math.max(0, f.line - 1), name: f.name };
  }
  return null;
}

/** Replays some variants of one snapshot file (each variant may ask for its timeline). */
export type ReplayVariants = (path: string, variants: ReplayVariantRequest[]) => Promise<ReplayReport>;

const replayDirectly: ReplayVariants = (file, variants) => loadNative().replaySnapshot(file, { variants, peakSites: PEAK_SITES });

/**
 * Requests for the same snapshot that arrive together (the panel asks for the recorded settings
 * with a timeline and for the what-ifs without, at once) are merged into one native call, so the
 * snapshot is decoded once; each caller gets its own variants back. JSON-RPC hands the server one
 * message per turn of the event loop, so "together" is a short window rather than one turn.
 */
export function batchedReplay(replay: ReplayVariants = replayDirectly): ReplayVariants {
  interface Waiter {
    from: number;
    count: number;
    resolve: (report: ReplayReport) => void;
    reject: (err: unknown) => void;
  }
  interface Batch {
    variants: ReplayVariantRequest[];
    waiters: Waiter[];
  }
  const pending = new Map<string, Batch>();
  const run = (file: string, batch: Batch) => {
    pending.delete(file);
    replay(file, batch.variants).then(
      (report) => {
        for (const w of batch.waiters) w.resolve({ ...report, variants: report.variants.slice(w.from, w.from + w.count) });
      },
      (err: unknown) => {
        for (const w of batch.waiters) w.reject(err);
      },
    );
  };
  return (file, variants) =>
    new Promise<ReplayReport>((resolve, reject) => {
      let batch = pending.get(file);
      if (!batch) {
        const created: Batch = { variants: [], waiters: [] };
        pending.set(file, created);
        setTimeout(() => run(file, created), BATCH_WINDOW_MS);
        batch = created;
      }
      batch.waiters.push({ from: batch.variants.length, count: variants.length, resolve, reject });
      batch.variants.push(...variants);
    });
}

/** Replays a snapshot for the editor: the CLI's report plus peak sites and timelines. */
export async function replayForEditor(
  params: ReplaySnapshotParams,
  folders: readonly string[],
  replay: ReplayVariants = replayDirectly,
): Promise<ReplaySnapshotResult> {
  const requested = params.variants.length > 0 ? params.variants : [{}];
  const report = await replay(toPath(params.uri), requested.map((v) => ({ ...v, timeline: params.timeline })));
  const json = toReplayJson(report);
  return {
    source: json.source,
    variants: report.variants.map((v, i) => ({
      ...json.variants[i]!,
      peakSites: (v.peakSites ?? []).map((s) => ({ ...s, workspaceSite: workspaceSite(s.frames, folders) })),
      timeline: v.timeline ? { allocatedBytes: Array.from(v.timeline.allocatedBytes), reservedBytes: Array.from(v.timeline.reservedBytes) } : null,
    })),
  };
}

/**
 * One information marker per workspace line that held the most memory at the peak of `variant`
 * (the replay under the snapshot's own settings).
 */
export function peakDiagnostics(variant: ReplaySnapshotResult['variants'][number], snapshotName: string): Map<string, Diagnostic[]> {
  const byUri = new Map<string, Diagnostic[]>();
  const perLine = new Map<string, { uri: string; line: number; bytes: number; count: number }>();
  for (const site of variant.peakSites) {
    if (!site.workspaceSite) continue;
    const key = `${site.workspaceSite.uri}#${site.workspaceSite.line}`;
    const entry = perLine.get(key) ?? { uri: site.workspaceSite.uri, line: site.workspaceSite.line, bytes: 0, count: 0 };
    entry.bytes += site.bytes;
    entry.count += site.count;
    perLine.set(key, entry);
  }
  const top = [...perLine.values()].sort((a, b) => b.bytes - a.bytes).slice(0, MARKED_SITES);
  for (const site of top) {
    const diagnostic: Diagnostic = {
      range: { start: { line: site.line, character: 0 }, end: { line: site.line, character: Number.MAX_SAFE_INTEGER } },
      severity: DiagnosticSeverity.Information,
      source: DIAGNOSTIC_SOURCE,
      message:
        `${formatBytes(site.bytes)} live here at the peak (${site.count} allocation${site.count === 1 ? '' : 's'}; ` +
        `${formatBytes(variant.allocatedPeakBytes)} allocated in all) in ${snapshotName}`,
    };
    const list = byUri.get(site.uri) ?? [];
    list.push(diagnostic);
    byUri.set(site.uri, list);
  }
  return byUri;
}

export function register(ctx: ServerContext): void {
  const replay = batchedReplay();
  ctx.connection.onRequest(SnapshotSummaryRequest.type, (params) =>
    ctx.track('snapshot summary', () => summarizeSnapshotFile(toPath(params.uri))),
  );
  ctx.connection.onRequest(ReplaySnapshotRequest.type, (params) =>
    ctx.track('snapshot replay', async () => {
      const result = await replayForEditor(params, ctx.workspaceFolders(), replay);
      // Markers show the run as recorded: only a replay under the snapshot's own settings and no
      // capacity replaces them (what-if requests leave them as they are).
      const own = params.variants.length === 0 ? 0 : params.variants.findIndex((v) => v.settings == null && v.capacityBytes == null);
      const variant = own >= 0 ? result.variants[own] : undefined;
      if (variant) {
        ctx.diagnostics.clearSource(DIAGNOSTIC_SOURCE);
        for (const [uri, diagnostics] of peakDiagnostics(variant, path.basename(toPath(params.uri)))) {
          ctx.diagnostics.set(DIAGNOSTIC_SOURCE, uri, diagnostics);
        }
      }
      return result;
    }),
  );
}
