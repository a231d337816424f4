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
import { NotificationType, RequestType, RequestType0 } from 'vscode-languageserver-protocol';

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
  /**
   * Set on the one verdict of a text in which no failure was recognized: it is classed not-oom (no out-of-memory
   * message, kill, abort or hang is in it), with nothing to fix and no evidence line.
   */
  noFailureFound?: true;
}

export interface TriageReport {
  /** A path or a label ("selection") for what was triaged. */
  source: string;
  /** Root failure first; never empty: a text with no failure Headroom recognizes gets one `noFailureFound` verdict. */
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

// ---------------------------------------------------------------------------------------------
// What-if replay of memory snapshots (server/src/replay/, docs/REPLAY.md)

export interface ReplayVariantParams {
  /** A PYTORCH_CUDA_ALLOC_CONF string; null or absent = the settings the snapshot recorded. */
  settings?: string | null;
  /** The most bytes the allocator may reserve (a fraction limit or a smaller card); null = unlimited. */
  capacityBytes?: number | null;
}

export interface ReplaySnapshotParams {
  /** A file URI or path to a `.pickle` or `.pickle.gz` memory snapshot. */
  uri: string;
  /** The what-ifs to replay; empty = only the snapshot's own settings. */
  variants: ReplayVariantParams[];
  /** Include allocated and reserved bytes after every trace entry (every entry, not a sample). */
  timeline: boolean;
}

export interface ReplayFrameInfo {
  filename: string;
  line: number;
  name: string;
}

/** Where memory was held at the allocated peak, with the frame in the workspace when there is one. */
export interface ReplayPeakSiteInfo {
  bytes: number;
  count: number;
  frames: ReplayFrameInfo[];
  /** The innermost frame inside a workspace folder, as a file URI and 0-based line; null if none. */
  workspaceSite: { uri: string; line: number; name: string } | null;
}

/** What one variant's replay found: the numbers of `headroom replay --json` and of the panel. */
export interface ReplayVariantNumbers {
  settings: string;
  capacityBytes: number | null;
  reservedPeakBytes: number;
  allocatedPeakBytes: number;
  /** Reserved minus allocated bytes when allocated memory peaked. */
  fragmentationBytes: number;
  segmentAllocs: number;
  segmentFrees: number;
  allocRetries: number;
  ooms: number;
  firstOom: null | { eventIndex: number; allocIndex: number; sizeBytes: number; frames: ReplayFrameInfo[] };
}

export interface ReplayVariantInfo extends ReplayVariantNumbers {
  /** Call stacks holding the most bytes at this variant's allocated peak (device with the highest peak). */
  peakSites: ReplayPeakSiteInfo[];
  /** When requested: bytes after every trace entry of that device. */
  timeline: { allocatedBytes: number[]; reservedBytes: number[] } | null;
}

export interface ReplaySnapshotResult {
  source: { events: number; devices: number; settings: string; startReconstructed: boolean; notes: string[] };
  variants: ReplayVariantInfo[];
}

/**
 * Sent from the client to the server to replay a snapshot through the caching-allocator simulator
 * under each variant. When a variant replays the snapshot's own settings with no capacity (or
 * `variants` is empty), the server also marks the workspace lines holding the most memory at that
 * replay's peak (diagnostics of source `headroom-replay`), replacing the previous markers.
 */
export namespace ReplaySnapshotRequest {
  export const method: 'headroom/replaySnapshot' = 'headroom/replaySnapshot';
  export const type = new RequestType<ReplaySnapshotParams, ReplaySnapshotResult, void>(method);
}

// ---------------------------------------------------------------------------------------------
// Reproducer runs (server/src/runs/)

/** A reproducer probe, as listed by `headroom repro list --json` and `headroom/listProbes`. */
export interface ProbeInfo {
  /** Stable id, e.g. `rank-divergent-allocation`. */
  id: string;
  title: string;
  /** The seed report it comes from (`000`, `003`, `004`), or `-` for the generic probes. */
  seed: string;
  /** Variant ids, in the order a run without `--variant` runs them. */
  variants: string[];
  /** True when the probe means nothing without a GPU (it reports that clearly instead of running). */
  needsGpu: boolean;
  /** The smallest world size it runs with. */
  minRanks: number;
}

/**
 * How one cell (variant x repeat) ended: `completed`, a `catchable-oom` the program could catch,
 * an `abort` (a rank died by a signal), a `hang` (the watchdog saw no progress), or an `error`
 * (anything else, including "this probe needs a GPU").
 */
export type CellOutcome = 'completed' | 'catchable-oom' | 'abort' | 'hang' | 'error';

/** One memory sample of one rank: milliseconds since the rank started, bytes. */
export interface MemorySample {
  tMs: number;
  /** Bytes in live tensors (PyTorch `memory_allocated`; the process RSS on CPU). */
  allocatedBytes: number;
  /** Bytes PyTorch's cache holds (`memory_reserved`; equal to allocated on CPU). */
  reservedBytes: number;
  /** Free device bytes as the driver reports them; absent on CPU. */
  deviceFreeBytes?: number;
}

export interface CellResult {
  variant: string;
  /** 1-based. */
  repeat: number;
  outcome: CellOutcome;
  seconds: number;
  /** Why this outcome, one human-readable line each (the lines and facts that decided it). */
  evidence: string[];
  /** Per rank (`"0"`, `"1"`, ...): the Python stacks taken at a hang, or the last traceback otherwise. */
  stacks: Record<string, string>;
  /** The native backtrace written at an abort or fatal signal (crashing thread, name, tid), if any. */
  backtrace: string | null;
  /**
   * Per rank: the Python frames of `stacks` (the main thread's at a hang, the traceback's otherwise),
   * innermost first, with `workspaceUri` where the file is in the workspace (for clickable frames).
   */
  frames?: Record<string, SourceFrame[]>;
  /** The rank whose control flow left the others' at a hang, when the watchdog could tell. */
  divergingRank?: number;
  /** Numbers the probe reported, e.g. `collectivesCompleted`, `allocationFailures`, `largestBatch`. */
  metrics: Record<string, number | string | boolean>;
  /** Per rank: the log file (stdout and stderr) on the machine that ran the server. */
  logs: Record<string, string>;
  /** Per rank: memory over time, sampled every 100 ms. */
  memory: Record<string, MemorySample[]>;
}

/** Final states of a run; `running` only while its server is alive and working on it. */
export type RunStatus = 'running' | 'finished' | 'interrupted' | 'cancelled';

/** What the run found out about the machine before the first cell (also the "test connection" answer). */
export interface TargetEnvironment {
  python: string;
  pythonVersion: string;
  torchVersion?: string;
  /** `cuda`, `rocm` or `cpu`. */
  platform: 'cuda' | 'rocm' | 'cpu';
  devices: Array<{ name: string; totalBytes: number }>;
  distributedBackends: string[];
  /** The C compiler that built the preload shim, when there is one. */
  compiler?: string;
  hostname: string;
}

export interface RunRecord {
  runId: string;
  probe: string;
  /** `local`, later `ssh:HOST` or `slurm:PARTITION`. */
  target: string;
  status: RunStatus;
  variants: string[];
  repeats: number;
  ranks: number;
  hangWindowSeconds: number;
  /** ISO 8601 times. */
  startedAt: string;
  endedAt?: string;
  environment?: TargetEnvironment;
  /** Finished cells, in the order they finished. */
  cells: CellResult[];
  /** A run-level note, e.g. why it was interrupted or that the probe needs a GPU. */
  message?: string;
}

export interface StartRunParams {
  probe: string;
  /** Only `local` in this version. */
  target: string;
  /** Defaults to every variant of the probe. */
  variants?: string[];
  /** Default 1. */
  repeats?: number;
  /** Default: the probe's `minRanks`. */
  ranks?: number;
  /** Seconds without progress before a hang verdict; default 10. */
  hangWindowSeconds?: number;
  /** Extra arguments for the probe (the `script` probe takes the user's entry point and its arguments). */
  args?: string[];
}

export interface StartRunResult {
  runId: string;
}

/** Sent from the client to start a run; progress then arrives as `headroom/runProgress` notifications. */
export namespace StartRunRequest {
  export const method: 'headroom/startRun' = 'headroom/startRun';
  export const type = new RequestType<StartRunParams, StartRunResult, void>(method);
}

export interface RunIdParams {
  runId: string;
}

/** Sent from the client to cancel a run: every process of it is killed; finished cells are kept. */
export namespace CancelRunRequest {
  export const method: 'headroom/cancelRun' = 'headroom/cancelRun';
  export const type = new RequestType<RunIdParams, void, void>(method);
}

/** Sent from the client for the probe catalog (the Runs view's "new run" picker). */
export namespace ListProbesRequest {
  export const method: 'headroom/listProbes' = 'headroom/listProbes';
  export const type = new RequestType0<ProbeInfo[], void>(method);
}

/** Sent from the client for every stored run, newest first (the Runs tree view); cells are left out. */
export namespace ListRunsRequest {
  export const method: 'headroom/listRuns' = 'headroom/listRuns';
  export const type = new RequestType0<Array<Omit<RunRecord, 'cells'> & { cellCount: number }>, void>(method);
}

/** Sent from the client for one stored run with all its cells (the results webview). */
export namespace GetRunRequest {
  export const method: 'headroom/getRun' = 'headroom/getRun';
  export const type = new RequestType<RunIdParams, RunRecord, void>(method);
}

/** Where a run is, as a tagged union. */
export type RunState =
  | { tag: 'started'; probe: string; target: string; cellsPlanned: number }
  | { tag: 'environment'; environment: TargetEnvironment }
  | { tag: 'cell-started'; variant: string; repeat: number }
  | { tag: 'cell-finished'; cell: CellResult; cellsDone: number; cellsPlanned: number }
  | { tag: 'ended'; status: Exclude<RunStatus, 'running'>; message?: string };

export interface RunProgressParams {
  runId: string;
  state: RunState;
}

/** Sent from the server to the client as a run moves on (drives the progress bar and the matrix). */
export namespace RunProgressNotification {
  export const method: 'headroom/runProgress' = 'headroom/runProgress';
  export const type = new NotificationType<RunProgressParams>(method);
}

export interface RunOutputParams {
  runId: string;
  variant: string;
  repeat: number;
  rank: number;
  /** A chunk of the rank's stdout and stderr, as printed. */
  text: string;
}

/** Sent from the server to the client with live output of a rank (the per-cell log). */
export namespace RunOutputNotification {
  export const method: 'headroom/runOutput' = 'headroom/runOutput';
  export const type = new NotificationType<RunOutputParams>(method);
}

// ---------------------------------------------------------------------------------------------
// Remote targets (server/src/runs/remote/, server/src/runs/targets/{ssh,slurm}.ts)

/** The answer to "Test connection" on a target. */
export interface ConnectionReport {
  /** `ssh:HOST`, `slurm:PARTITION` or `local`. */
  target: string;
  /** Wall time of the check, connection set-up included. */
  seconds: number;
  environment: TargetEnvironment;
  /** Why `import torch` failed on the target, when it did. */
  torchError?: string;
}

export interface TestConnectionParams {
  /** `ssh:HOST` or `slurm:PARTITION`. */
  target: string;
}

/** Sent from the client to check a target: python, torch, platform, devices, backends, C compiler. */
export namespace TestConnectionRequest {
  export const method: 'headroom/testConnection' = 'headroom/testConnection';
  export const type = new RequestType<TestConnectionParams, ConnectionReport, void>(method);
}

/**
 * Sent from the client for the targets to offer when starting a run: `local`, the targets of the
 * targets file, and `ssh:HOST` for each concrete host in ~/.ssh/config.
 */
export namespace ListTargetsRequest {
  export const method: 'headroom/listTargets' = 'headroom/listTargets';
  export const type = new RequestType0<string[], void>(method);
}

/**
 * Sent from the client to re-attach to an interrupted remote run; answered with the final record
 * once the run has ended on its host (`finished`, or still `interrupted` with the reason).
 */
export namespace ReattachRunRequest {
  export const method: 'headroom/reattachRun' = 'headroom/reattachRun';
  export const type = new RequestType<RunIdParams, RunRecord, void>(method);
}

/** Sent from the client to kill an interrupted remote run on its host (and scancel its job). */
export namespace CancelRemoteRunRequest {
  export const method: 'headroom/cancelRemoteRun' = 'headroom/cancelRemoteRun';
  export const type = new RequestType<RunIdParams, RunRecord, void>(method);
}

/** A Slurm run's job, as squeue and scontrol see it. */
export type SlurmJobState =
  | { tag: 'pending'; jobId: string; reason: string; /** 1 = next to start in its partition. */ queuePosition: number | null }
  | { tag: 'running'; jobId: string; node: string }
  | { tag: 'ended'; jobId: string; state: string }
  | { tag: 'unknown' };

/** Sent from the client for the job state and queue position of a Slurm run (the Runs view). */
export namespace SlurmJobRequest {
  export const method: 'headroom/slurmJob' = 'headroom/slurmJob';
  export const type = new RequestType<RunIdParams, SlurmJobState, void>(method);
}
