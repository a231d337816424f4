/**
 * Every custom message between the Headroom extension and its server, in one place.
 *
 * The extension imports this module through the tsconfig project reference, so a change here is
 * type-checked on both sides; test/unit/protocol.test.ts snapshots every method string so that a
 * rename fails CI instead of silently breaking an older client.
 *
 * Conventions: `XxxParams`/`XxxResult` types, a namespace per message holding its literal `method`
 * and its `type`. Sizes are integers in bytes and carry `Bytes` in their names.
 */
import { NotificationType, RequestType } from 'vscode-languageserver-protocol';

// ---------------------------------------------------------------------------------------------
// Server health

export type ServerHealth = 'ok' | 'warning' | 'error';

export interface ServerStatusParams {
  health: ServerHealth;
  /** True when the server has no work queued; e2e tests wait on this instead of sleeping. */
  quiescent: boolean;
  message?: string;
}

/** Sent from the server to the client whenever its health or busy state changes. */
export namespace ServerStatusNotification {
  export const method: 'headroom/serverStatus' = 'headroom/serverStatus';
  export const type = new NotificationType<ServerStatusParams>(method);
}

// ---------------------------------------------------------------------------------------------
// Triage

/** What went wrong, from the user's point of view. */
export type VerdictKind =
  | 'catchable-oom'
  | 'fragmentation'
  | 'runtime-abort'
  | 'collective-oom'
  | 'hang'
  | 'host-oom'
  | 'not-oom';

export type Platform = 'cuda' | 'rocm' | 'xla-tpu' | 'mps' | 'xpu' | 'gaudi' | 'npu' | 'cpu';

/** One frame of a Python traceback, as printed. `line` is 1-based. */
export interface SourceFrame {
  file: string;
  line: number;
  function: string;
  /** The workspace file the frame maps to, when one was found. */
  workspaceUri?: string;
}

export interface Fix {
  /** Stable id, e.g. `expandable-segments`. */
  id: string;
  title: string;
  /** Why this fix fits this failure (refers to the numbers). */
  rationale: string;
  /** A setting or code change the user can apply, when there is one. */
  snippet?: string;
}

/** A line of the input that produced part of the verdict. `line` is 1-based. */
export interface Evidence {
  line: number;
  text: string;
}

export interface Verdict {
  kind: VerdictKind;
  platform: Platform;
  /** Could the program have caught it (an exception rather than an abort or a hang). */
  catchable: boolean;
  /** A one-line headline, e.g. "CUDA out of memory: 2.00 GiB requested, 1.23 GiB free of 79.11 GiB". */
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
  /** User frames, innermost first (frames outside site-packages and the framework). */
  userFrames: SourceFrame[];
  fixes: Fix[];
  evidence: Evidence[];
  /** Index into the same report's verdicts of the failure this one is a consequence of. */
  causedBy?: number;
}

export interface TriageReport {
  /** A path or a label ("selection") for what was triaged. */
  source: string;
  /** Root failure first; empty when the text holds no failure Headroom recognizes. */
  verdicts: Verdict[];
}

export interface TriageParams {
  /** Either the text itself or the URI of a file to read. */
  text?: string;
  uri?: string;
  /** Label for the report when `text` is given. */
  label?: string;
}

/** Sent from the client to the server to triage a log; diagnostics are published at the user frames. */
export namespace TriageRequest {
  export const method: 'headroom/triage' = 'headroom/triage';
  export const type = new RequestType<TriageParams, TriageReport, void>(method);
}

// ---------------------------------------------------------------------------------------------
// Memory snapshots

export interface SnapshotSummary {
  /** Trace entries per action (`alloc`, `free_requested`, `free_completed`, `segment_alloc`, ...). */
  actionCounts: Record<string, number>;
  /** Sum of `actionCounts` over all devices. */
  traceEvents: number;
  /** Entries in the snapshot's `segments` list. */
  segmentCount: number;
  /** Number of per-device trace lists. */
  deviceCount: number;
}

export interface SnapshotSummaryParams {
  /** A file URI or path to a `.pickle` or `.pickle.gz` memory snapshot. */
  uri: string;
}

/** Sent from the client to the server to decode a snapshot and summarize it. */
export namespace SnapshotSummaryRequest {
  export const method: 'headroom/snapshotSummary' = 'headroom/snapshotSummary';
  export const type = new RequestType<SnapshotSummaryParams, SnapshotSummary, void>(method);
}
