import * as vscode from 'vscode';
import { ReplaySnapshotRequest, SnapshotSummaryRequest, type ReplayVariantParams } from '../../server/src/protocol';
import type { CtxInit } from './ctx';
import { pickFile } from './ui';
import type { ToWebview } from '../../webview/src/messages';
import { ResultsPanel } from './panels/resultsPanel';

/**
 * The what-ifs the panel shows beside the recorded settings: the fixes users reach for first when
 * reserved memory runs away from allocated memory.
 */
const WHAT_IF_SETTINGS: readonly string[] = ['expandable_segments:True', 'max_split_size_mb:512', 'roundup_power2_divisions:4', 'garbage_collection_threshold:0.8'];

function variants(capacityBytes: number | null): ReplayVariantParams[] {
  return [{ settings: null, capacityBytes }, ...WHAT_IF_SETTINGS.map((settings) => ({ settings, capacityBytes }))];
}

/** "Open Memory Snapshot…": replays the snapshot under its own settings and the what-ifs. */
export async function openSnapshot(c: CtxInit, given: unknown): Promise<void> {
  const uri = await pickFile(given, 'Open a PyTorch memory snapshot', { 'Memory snapshots': ['pickle', 'gz'], 'All files': ['*'] });
  if (!uri) return;
  const summary = c.client.sendRequest(SnapshotSummaryRequest.type, { uri: uri.toString() });
  const replay = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Headroom: replaying ${vscode.workspace.asRelativePath(uri)}` },
    async () => {
      // The timeline (every event) only for the recorded settings: the what-ifs need just their numbers.
      const [recorded, whatIf] = await Promise.all([
        c.client.sendRequest(ReplaySnapshotRequest.type, { uri: uri.toString(), variants: [{ settings: null, capacityBytes: null }], timeline: true }),
        c.client.sendRequest(ReplaySnapshotRequest.type, { uri: uri.toString(), variants: variants(null).slice(1), timeline: false }),
      ]);
      return { ...recorded, variants: [...recorded.variants, ...whatIf.variants] };
    },
  );
  ResultsPanel.show(c.extCtx.extensionUri, { view: 'replay', file: uri.fsPath, summary: await summary, replay });
}

/** The panel's "Replay at this capacity": every variant again under that capacity. */
export async function replayAtCapacity(c: CtxInit, file: string, capacityBytes: number): Promise<ToWebview> {
  const result = await c.client.sendRequest(ReplaySnapshotRequest.type, { uri: vscode.Uri.file(file).toString(), variants: variants(capacityBytes), timeline: false });
  return { type: 'replayAtCapacity', file, result };
}
