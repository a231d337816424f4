/**
 * The contract between the extension host and the results webview. Both sides import this module;
 * handlers switch exhaustively on `type`, so a new message fails type-checking until it is handled.
 *
 * Payloads reuse the server protocol's types (type-only imports: nothing of the LSP library is
 * bundled into the webview).
 */
import type { ReplaySnapshotResult, RunRecord, SnapshotSummary, TriageReport } from '../../server/src/protocol';

/** What the panel is showing; also what the webview persists with setState. */
export type PanelContent =
  | { view: 'triage'; report: TriageReport }
  | { view: 'run'; run: RunRecord }
  /**
   * A snapshot's what-if replay: `replay` carries the timeline of its first variant (the recorded
   * settings); `atCapacity`, when the user asked, the same variants replayed under a capacity.
   */
  | { view: 'replay'; file: string; summary: SnapshotSummary; replay: ReplaySnapshotResult; atCapacity?: ReplaySnapshotResult };

/** Extension -> webview. */
export type ToWebview =
  | { type: 'show'; content: PanelContent }
  /** The answer to `replayAtCapacity`, for the replay of `file` on show. */
  | { type: 'replayAtCapacity'; file: string; result: ReplaySnapshotResult };

/** Webview -> extension. */
export type FromWebview =
  /** Sent once the script has loaded and can receive `show`. */
  | { type: 'ready' }
  /** The user clicked a frame or a log: open the file (a URI or a local path) at the line (1-based). */
  | { type: 'openFile'; target: string; line: number }
  /** Replay the panel's snapshot again under every variant with this capacity (bytes). */
  | { type: 'replayAtCapacity'; file: string; capacityBytes: number };
