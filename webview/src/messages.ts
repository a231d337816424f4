/**
 * The contract between the extension host and the results webview. Both sides import this module;
 * handlers switch exhaustively on `type`, so a new message fails type-checking until it is handled.
 *
 * The payload types are structural copies of the server protocol's shapes that the webview draws;
 * the webview is browser code and must not import the LSP library.
 */

export interface FrameView {
  file: string;
  line: number;
  function: string;
  workspaceUri?: string;
}

export interface VerdictView {
  kind: string;
  platform: string;
  catchable: boolean;
  summary: string;
  explanation: string;
  device?: number;
  rank?: number;
  requestedBytes?: number;
  deviceTotalBytes?: number;
  freeBytes?: number;
  allocatedBytes?: number;
  reservedBytes?: number;
  reservedUnallocatedBytes?: number;
  processInUseBytes?: number;
  allowedBytes?: number;
  userFrames: FrameView[];
  fixes: Array<{ id: string; title: string; rationale: string; snippet?: string }>;
  evidence: Array<{ line: number; text: string }>;
  causedBy?: number;
}

export interface TriageView {
  source: string;
  verdicts: VerdictView[];
}

export interface SnapshotSummaryView {
  file: string;
  actionCounts: Record<string, number>;
  traceEvents: number;
  segmentCount: number;
  deviceCount: number;
}

/** What the panel is showing; also what the webview persists with setState. */
export type PanelContent =
  | { view: 'triage'; report: TriageView }
  | { view: 'snapshot'; summary: SnapshotSummaryView };

/** Extension -> webview. */
export type ToWebview = { type: 'show'; content: PanelContent };

/** Webview -> extension. */
export type FromWebview =
  /** Sent once the script has loaded and can receive `show`. */
  | { type: 'ready' }
  /** The user clicked a frame: open the file at the line (1-based). */
  | { type: 'openFrame'; uri: string; line: number };
