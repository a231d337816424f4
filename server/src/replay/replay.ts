/**
 * What-if replay of a PyTorch memory snapshot: the native simulator of the CUDA caching allocator
 * replays the recorded allocation requests under other allocator settings and capacities.
 */
import { loadNative, type ReplayDeviceResult, type ReplayReport, type ReplayVariantResult } from '../../../native/index';
import type { ReplayVariantNumbers } from '../protocol';

/** `--fit` searches capacities in steps of this size. */
export const FIT_GRANULARITY_BYTES = 64 * 1024 * 1024;

export interface ReplayRequest {
  /** PYTORCH_CUDA_ALLOC_CONF strings, one variant each; empty = the snapshot's own settings. */
  settings: string[];
  /** Applies to every variant; undefined = unlimited. */
  capacityBytes?: number;
  /** Search the smallest capacity without OOM instead of replaying at one. */
  fit?: boolean;
  timeline?: boolean;
  deviceTotalBytes?: number;
}

/** The `headroom replay --json` shape (see docs/REPLAY.md). */
export interface ReplayJson {
  source: {
    events: number;
    devices: number;
    settings: string;
    /** The trace starts mid-run (a ring buffer): the allocator state there was reconstructed. */
    startReconstructed: boolean;
    /** Caveats about the replay's start, one sentence each. */
    notes: string[];
  };
  variants: ReplayVariantJson[];
}

export interface ReplayVariantJson extends ReplayVariantNumbers {
  /** Present for `--fit`: the capacity searched for is `capacityBytes`, in steps of this. */
  fitGranularityBytes?: number;
}

/** Replays a snapshot file (`.pickle` or `.pickle.gz`, streamed by the addon) under each variant. */
export async function replaySnapshotFile(path: string, request: ReplayRequest): Promise<ReplayReport> {
  const settings: (string | null)[] = request.settings.length > 0 ? request.settings : [null];
  return loadNative().replaySnapshot(path, {
    variants: settings.map((s) =>
      request.fit
        ? { settings: s, fitGranularityBytes: FIT_GRANULARITY_BYTES }
        : { settings: s, capacityBytes: request.capacityBytes ?? null },
    ),
    timeline: request.timeline ?? false,
    ...(request.deviceTotalBytes !== undefined ? { deviceTotalBytes: request.deviceTotalBytes } : {}),
  });
}

function variantJson(v: ReplayVariantResult, fit: boolean): ReplayVariantJson {
  const pick = (d: ReplayDeviceResult) => ({
    reservedPeakBytes: d.reservedPeakBytes,
    allocatedPeakBytes: d.allocatedPeakBytes,
    fragmentationBytes: d.fragmentationBytes,
    segmentAllocs: d.segmentAllocs,
    segmentFrees: d.segmentFrees,
    allocRetries: d.allocRetries,
    ooms: d.ooms,
    firstOom: d.firstOom,
  });
  return {
    settings: v.settings,
    capacityBytes: v.capacityBytes,
    ...pick(v),
    ...(fit ? { fitGranularityBytes: FIT_GRANULARITY_BYTES } : {}),
  };
}

/** The report in the CLI's JSON contract (timelines and per-device detail left out). */
export function toReplayJson(report: ReplayReport, fit = false): ReplayJson {
  const notes: string[] = [];
  for (const d of report.source.recorded) {
    if (d.startReconstructed) {
      notes.push(
        `Device ${d.device}: the trace starts mid-run; the ${d.initialSegments} segments (${d.initialReservedBytes} bytes reserved, ` +
          `${d.initialAllocatedBytes} allocated) held at its first entry were reconstructed from the final segments, walking the trace backwards.`,
      );
    } else if (d.reconstructionProblem !== null && d.unmatchedFrees > 0) {
      notes.push(
        `Device ${d.device}: the trace starts mid-run, but its starting state was not reconstructed (${d.reconstructionProblem}); ` +
          `the replay starts from an empty allocator and ignores ${d.unmatchedFrees} frees of earlier blocks, so its peaks are lower bounds.`,
      );
    }
  }
  for (const v of report.variants) {
    const held = Math.max(0, ...report.source.recorded.map((d) => (d.startReconstructed ? d.initialReservedBytes : 0)));
    if (v.capacityBytes !== null && held > v.capacityBytes) {
      notes.push(
        `${v.settings === '' ? 'The recorded settings' : v.settings} with a capacity of ${v.capacityBytes} bytes: the reconstructed start already ` +
          `holds ${held} bytes; entirely free cached segments were left out, the rest is kept as recorded, so peaks below that are not predictions.`,
      );
    }
  }
  return {
    source: {
      events: report.source.events,
      devices: report.source.devices,
      settings: report.source.settings,
      startReconstructed: report.source.startReconstructed,
      notes,
    },
    variants: report.variants.map((v) => variantJson(v, fit)),
  };
}
