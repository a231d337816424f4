/**
 * The typed API of Headroom's native addon (native/src, built by node-gyp into headroom.node).
 *
 * Only the server loads this module; the extension host never does (a crash in native code must
 * not take the editor down with it). Every slow call runs on a libuv worker thread and returns a
 * promise; failures reject with a {@link NativeError} whose `code` names the problem.
 */
import * as path from 'node:path';

/** Error codes the addon reports. */
export type NativeErrorCode =
  /** The bytes are not a pickle, it ends early, or its gzip stream is corrupt or truncated. */
  | 'ERR_SNAPSHOT_MALFORMED'
  /** The pickle uses an opcode outside the allow-list (GLOBAL, REDUCE, BUILD, ...). */
  | 'ERR_SNAPSHOT_FORBIDDEN_OPCODE'
  /** The pickle is well formed but is not a PyTorch memory snapshot. */
  | 'ERR_SNAPSHOT_SCHEMA'
  /** A file could not be opened or read. */
  | 'ERR_IO'
  /** The decoder ran out of memory. */
  | 'ERR_OUT_OF_MEMORY'
  /** A PYTORCH_CUDA_ALLOC_CONF string the simulator cannot honour (PyTorch's wording where it has one). */
  | 'ERR_INVALID_SETTINGS'
  /** A call with arguments of the wrong type. */
  | 'ERR_INVALID_ARGUMENT';

/** The class the addon constructs for every error it reports (handed to it once at load). */
export class NativeError extends Error {
  constructor(message: string, readonly code: NativeErrorCode) {
    super(message);
    this.name = 'NativeError';
  }
}

export interface SnapshotDecodeSummary {
  /** Trace entries per action over all devices (`alloc`, `free_requested`, ...). */
  actionCounts: Record<string, number>;
  traceEvents: number;
  segmentCount: number;
  deviceCount: number;
}

/** One what-if: allocator settings and an optional capacity. */
export interface ReplayVariantRequest {
  /** A PYTORCH_CUDA_ALLOC_CONF string; null or absent = the settings the snapshot recorded. */
  settings?: string | null;
  /**
   * The most bytes the allocator may reserve (set_per_process_memory_fraction's limit, or a smaller
   * card); null or absent = unlimited.
   */
  capacityBytes?: number | null;
  /**
   * Instead of replaying at one capacity, search the smallest one (a multiple of this many bytes)
   * at which the run raises no OOM; the result's capacityBytes is that capacity.
   */
  fitGranularityBytes?: number | null;
  /** Per-event bytes for this variant (options.timeline asks for them for every variant). */
  timeline?: boolean;
}

export interface ReplayOptions {
  variants: ReplayVariantRequest[];
  /** Per-event allocated and reserved bytes for every variant (for the timeline). */
  timeline?: boolean;
  /** Every device-memory call the simulator made, as [eventIndex, ±bytes] pairs (for validation). */
  segmentCalls?: boolean;
  /** The device's total memory; sizes expandable segments' address space (default 80 GiB). */
  deviceTotalBytes?: number;
  /** Report this many call stacks that hold the most bytes at each variant's allocated peak. */
  peakSites?: number;
  /**
   * Replay each device's trace from this entry on, as if the ring buffer had dropped everything
   * before it; the allocator state there is reconstructed from the final segments (default 0).
   */
  firstEvent?: number;
}

export interface ReplayFrame {
  filename: string;
  line: number;
  name: string;
}

export interface ReplayOom {
  /** Index of the failing request's trace entry within its device's trace. */
  eventIndex: number;
  /** Allocation requests (`alloc` and `oom` entries) before the failing one, counting from 0. */
  allocIndex: number;
  /** The request's size as recorded. */
  sizeBytes: number;
  /** Where the failing allocation was made, innermost first. */
  frames: ReplayFrame[];
}

export interface ReplayPeakSite {
  bytes: number;
  /** Live allocations made through this stack. */
  count: number;
  frames: ReplayFrame[];
}

export interface ReplayDeviceResult {
  device: number;
  reservedPeakBytes: number;
  allocatedPeakBytes: number;
  /**
   * Reserved minus allocated bytes when allocated memory peaked: what the cache held on top of the
   * program's demand at its highest (fragmentation and cached free blocks).
   */
  fragmentationBytes: number;
  reservedPeakEventIndex: number;
  allocatedPeakEventIndex: number;
  /** cudaMalloc calls plus expandable-segment map calls (PyTorch's num_device_alloc). */
  segmentAllocs: number;
  /** cudaFree plus unmap calls (num_device_free). */
  segmentFrees: number;
  /** Allocations that succeeded only after releasing the whole cache (num_alloc_retries). */
  allocRetries: number;
  ooms: number;
  firstOom: ReplayOom | null;
  timeline?: { allocatedBytes: Float64Array; reservedBytes: Float64Array };
  /**
   * When options.peakSites: the call stacks holding the most requested bytes at the allocated peak
   * (an empty frame list: allocations recorded without Python frames, such as autograd's backward
   * pass, and blocks already live when the trace starts).
   */
  peakSites?: ReplayPeakSite[];
  segmentCalls?: Float64Array;
}

/** A variant's result: the fields of its worst device (highest reserved peak), and every device. */
export interface ReplayVariantResult extends ReplayDeviceResult {
  settings: string;
  capacityBytes: number | null;
  /** For a capacity search: how many replays it took. */
  fitReplays?: number;
  devices: ReplayDeviceResult[];
}

export interface ReplayRecordedDevice {
  device: number;
  events: number;
  requests: number;
  /** Frees of blocks allocated before the trace's first entry (a ring buffer that wrapped). */
  unmatchedFrees: number;
  segmentAllocs: number;
  segmentFrees: number;
  ooms: number;
  /** The entry the replay started from (options.firstEvent). */
  firstEvent: number;
  /** True when memory was already held at the first entry and its state was reconstructed. */
  startReconstructed: boolean;
  initialReservedBytes: number;
  initialAllocatedBytes: number;
  initialSegments: number;
  /** Why the start could not be reconstructed (the replay then starts empty), or null. */
  reconstructionProblem: string | null;
}

export interface ReplayReport {
  source: {
    events: number;
    devices: number;
    settings: string;
    /** True when some device's replay started from a reconstructed, non-empty state. */
    startReconstructed: boolean;
    recorded: ReplayRecordedDevice[];
    /**
     * Milliseconds on the worker thread for decoding, pairing the trace and each variant: wall
     * clock, and the thread's CPU time (not inflated by other processes competing for the cores).
     */
    timings: {
      decodeMs: number;
      planMs: number;
      variantMs: number[];
      decodeCpuMs: number;
      planCpuMs: number;
      variantCpuMs: number[];
    };
  };
  variants: ReplayVariantResult[];
}

/**
 * A snapshot to decode: its bytes (an uncompressed pickle), or the path of a `.pickle` or
 * `.pickle.gz` file, which the addon streams from disk and gunzips itself (so a file of several
 * gigabytes is never held in memory whole).
 */
export type SnapshotSource = Uint8Array | string;

export interface ExportOptions {
  /** Keep each device's trace from this entry on (default 0). */
  firstEvent?: number;
  /** Keep at most this many entries per device, the last ones (default: all). */
  maxEvents?: number;
}

interface RawAddon {
  init(errorClass: typeof NativeError): void;
  decodeSnapshotSummary(source: SnapshotSource): Promise<SnapshotDecodeSummary>;
  replaySnapshot(source: SnapshotSource, options: ReplayOptions): Promise<ReplayReport>;
  exportSnapshot(source: SnapshotSource, outPath: string, options?: ExportOptions): Promise<{ bytes: number; events: number }>;
}

export interface NativeAddon {
  /**
   * Decodes an uncompressed PyTorch memory snapshot pickle with an allow-listed opcode reader
   * (nothing is ever unpickled) and counts its trace entries and segments.
   */
  decodeSnapshotSummary(source: SnapshotSource): Promise<SnapshotDecodeSummary>;
  /**
   * Decodes a snapshot once and replays its allocation requests through the caching-allocator
   * simulator under each variant's settings and capacity.
   */
  replaySnapshot(source: SnapshotSource, options: ReplayOptions): Promise<ReplayReport>;
  /**
   * Writes the snapshot back as a protocol-4 pickle that pytorch.org/memory_viz opens (it cannot
   * read protocol 5), optionally keeping only the last entries of each trace; the final segments
   * are kept whole, so memory_viz can still rebuild the earlier state.
   */
  exportSnapshot(source: SnapshotSource, outPath: string, options?: ExportOptions): Promise<{ bytes: number; events: number }>;
}

declare const __non_webpack_require__: NodeJS.Require | undefined;

let loaded: NativeAddon | undefined;

/**
 * Loads the addon. Candidates, in order: `HEADROOM_NATIVE` (a path, for debugging), next to the
 * bundle (`dist/native/headroom.node` in the VSIX), then the node-gyp build tree (development).
 * Only "not found" moves on to the next candidate; any other load error is a real failure (an ABI
 * mismatch, a missing symbol) and is rethrown as is.
 */
export function loadNative(baseDir: string = __dirname): NativeAddon {
  if (loaded) return loaded;
  // Bundlers rewrite `require`; the addon must be loaded by Node's own loader at run time.
  const nodeRequire = typeof __non_webpack_require__ === 'function' ? __non_webpack_require__ : require;
  const candidates = [
    process.env['HEADROOM_NATIVE'],
    path.join(baseDir, 'native', 'headroom.node'),
    path.join(baseDir, '..', 'native', 'build', 'Release', 'headroom.node'),
    path.join(baseDir, '..', '..', 'native', 'build', 'Release', 'headroom.node'),
    path.join(baseDir, 'build', 'Release', 'headroom.node'),
  ].filter((c): c is string => typeof c === 'string' && c.length > 0);
  for (const candidate of candidates) {
    let raw: RawAddon;
    try {
      raw = nodeRequire(candidate) as RawAddon;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') continue;
      throw err;
    }
    raw.init(NativeError);
    loaded = raw;
    return raw;
  }
  throw new Error(`Headroom's native addon was not found (looked in: ${candidates.join(', ')}); run "npm run build:native".`);
}
