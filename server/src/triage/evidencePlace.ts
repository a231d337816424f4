/**
 * The device and rank a failure's lines name in the runtimes' standard line formats, for failures whose reader did not take
 * them from the message itself. Only formats that always name the printing process's own device or rank are read, so a line
 * that mentions another device (a peer, a copy's source) gives none:
 * - NCCL's debug prefix, `host:pid:tid [3] … NCCL WARN …`: the bracket is the local CUDA device (cudaDev);
 * - torch_npu's error-code suffix, `(PID:13075, Device:1, RankID:8)`: the local device and the global rank (-1 outside a
 *   distributed job). torch_npu ends its error message with it and CANN's error block (`[Error]: …`, `EZ9999: Inner
 *   Error!`) follows, so the suffix just below torch_npu's message, or just above a line of CANN's block, is the failure's own;
 * - TensorFlow's device names, `/job:localhost/replica:0/task:0/device:GPU:0` (TensorFlow 1.x's `…/task:0/gpu:0`, its
 *   errors' "on GPU:0"), when the line names one GPU only;
 * - the launchers' reports of one rank's end: Open MPI's `process rank 3 with PID 4242 on node n1 exited on signal …` (the
 *   MPI_COMM_WORLD rank), PaddlePaddle's `Container rank 3 status failed` (the trainer's rank) and
 *   torch.multiprocessing.spawn's `ProcessExitedException: process 3 terminated with signal SIGSEGV` (the spawn index);
 * - XLA's and TensorFlow's "device ordinal N" when a line names one; NVCaffe's checks' trailing ", device N"; ggml's "current device: N" right under its CUDA error; and
 *   torch.nn.DataParallel's "Caught X in replica N on device D." right above the traceback it re-raises;
 * - torch.multiprocessing.spawn's header over a child's traceback (`-- Process 2 terminated with the following error:`):
 *   the process index, which spawn passes to the child as its rank.
 */
import { ascendSuffixDevice, ascendSuffixRank, tracebackRankAbove } from './ranks';
import type { LineView } from './signatures/types';

export interface Place {
  device?: number;
  rank?: number;
}

const NCCL_PREFIX = /^(?:\[[^\]]*\]\s*)?[\w.-]+:\d+:\d+ \[(\d+)\] .*\bNCCL (?:WARN|INFO)\b/;
const TF_GPU = /(?:\/device:GPU|\/gpu|\bon GPU):(\d+)\b/g;
const DEVICE_ORDINAL = /\bdevice ordinal (\d+)\b/g;
/** NVCaffe's CUDA and cuDNN checks end with the current device ("Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0)  CUDNN_STATUS_EXECUTION_FAILED, device 0"). */
const CAFFE_CHECK_DEVICE = /\bCheck failed: .*, device (\d+)\s*$/;
const GGML_CURRENT_DEVICE = /^\s*(?:\S+\s+)*?current device: (\d+)\b/;
/** torch.nn.DataParallel's re-raise of a replica's exception (parallel_apply.py's ExceptionWrapper): "Caught X in replica N on device D." */
export const REPLICA_DEVICE = /\bCaught \w+ in replica \d+ on device (\d+)\./;
const LAUNCHER_RANK = /\bprocess rank (\d+) with PID \S+ on node\b|\bContainer rank (\d+) status failed\b|\bProcessExitedException: process (\d+) terminated with signal\b/;
/** How far below torch_npu's message its suffix may be (on the message's own last lines). */
const SUFFIX_BELOW_LINES = 2;
/** How far above a line of CANN's block torch_npu's suffix may be (the message's last line, then the block). */
const SUFFIX_ABOVE_LINES = 4;

function ascendPlace(text: string): Place | undefined {
  const device = ascendSuffixDevice(text);
  if (device === undefined) return undefined;
  const rank = ascendSuffixRank(text);
  return { device, ...(rank !== undefined && { rank }) };
}

function placeOfLine(text: string): Place | undefined {
  const launcher = LAUNCHER_RANK.exec(text);
  if (launcher) return { rank: Number(launcher[1] ?? launcher[2] ?? launcher[3]) };
  const nccl = NCCL_PREFIX.exec(text);
  if (nccl) return { device: Number(nccl[1]) };
  const ascend = ascendPlace(text);
  if (ascend) return ascend;
  // A placement error names the device asked for, which may not exist.
  if (/Could not satisfy explicit device specification/.test(text)) return undefined;
  const gpus = new Set([...text.matchAll(TF_GPU)].map((m) => Number(m[1])));
  if (gpus.size === 1) return { device: [...gpus][0]! };
  const ordinals = new Set([...text.matchAll(DEVICE_ORDINAL)].map((m) => Number(m[1])));
  if (ordinals.size === 1) return { device: [...ordinals][0]! };
  const caffe = CAFFE_CHECK_DEVICE.exec(text);
  return caffe ? { device: Number(caffe[1]) } : undefined;
}

/** ggml's CUDA error report names the device on its next line (or the one after): "current device: 0, in function …". */
function ggmlDeviceBelow(line: LineView): Place | undefined {
  for (let k = 1; k <= 2; k++) {
    if (line.nextRank(k) !== line.rank) return undefined;
    const m = GGML_CURRENT_DEVICE.exec(line.next(k) ?? '');
    if (m) return { device: Number(m[1]) };
  }
  return undefined;
}

/** DataParallel's wrapper over the replica's traceback ("Caught RuntimeError in replica 0 on device 0.", then "Original Traceback …"). */
function replicaDeviceAbove(line: LineView): Place | undefined {
  for (let k = 1; k <= 3; k++) {
    const m = REPLICA_DEVICE.exec(line.previous(k) ?? '');
    if (m) return { device: Number(m[1]) };
  }
  return undefined;
}

/**
 * A line of CANN's error block under torch_npu's message: "[Error]: …", an error code ("EZ9999: Inner Error!", "EI0002: [PID:
 * …"), or indented; also behind a process's prefix that names no rank (vLLM's "(EngineCore_DP0 pid=1878198) ") or vLLM's
 * logger columns ("ERROR 05-27 09:53:02 [engine.py:448] ").
 */
const CANN_BLOCK_LINE = /^(?:\([\w.-]+ pid=\d+[^)]*\) ?)?(?:[A-Z]+ \d\d-\d\d [\d:]+ \[[\w.]+:\d+\] )?(?:\s*(?:\[Error\]:|E[A-Z]\d{4}\b)|\s+\S)/;
/** A line that starts another message: an exception or a traceback's header. */
const NEW_MESSAGE = /^\s*(?:[A-Za-z_][\w.]*(?:Error|Exception)\b|Traceback \(most recent call last\))/;

/**
 * torch_npu's suffix that belongs to the failure on this line: on the line just below its message (or two below, the message
 * going on over one more line), or just above a line of CANN's block with only block lines between. A line another rank
 * printed is not this failure's.
 */
function ascendSuffixAround(line: LineView): Place | undefined {
  for (let k = 1; k <= SUFFIX_BELOW_LINES; k++) {
    if (line.nextRank(k) !== line.rank) return undefined;
    const below = ascendPlace(line.next(k) ?? '');
    if (below) return below;
    if (NEW_MESSAGE.test(line.next(k) ?? '')) break;
  }
  if (!CANN_BLOCK_LINE.test(line.content)) return undefined;
  for (let k = 1; k <= SUFFIX_ABOVE_LINES; k++) {
    const above = line.previous(k) ?? '';
    if (line.previousRank(k) !== line.rank) return undefined;
    const place = ascendPlace(above);
    if (place) return place;
    if (!CANN_BLOCK_LINE.test(above)) return undefined;
  }
  return undefined;
}

/**
 * The place the failure's line and its further evidence lines (offsets below it) name, else torch_npu's suffix that belongs to
 * it. Lines that disagree give no device (or rank); a place whose device is not the one the reader read (`readDevice`) is
 * another failure's.
 */
export function placeAround(line: LineView, extraLines: readonly number[], readDevice?: number): Place {
  const places = [line.content, ...extraLines.map((k) => line.next(k) ?? '')].map(placeOfLine).filter((p) => p !== undefined);
  if (places.length === 0) {
    const around = ascendSuffixAround(line) ?? ggmlDeviceBelow(line) ?? replicaDeviceAbove(line);
    if (around) places.push(around);
  }
  if (readDevice !== undefined && places.some((p) => p.device !== undefined && p.device !== readDevice)) return {};
  const one = (values: (number | undefined)[]): number | undefined => {
    const set = new Set(values.filter((v) => v !== undefined));
    return set.size === 1 ? [...set][0] : undefined;
  };
  const device = one(places.map((p) => p.device));
  const rank = one(places.map((p) => p.rank)) ?? tracebackRankAbove(line);
  return { ...(device !== undefined && { device }), ...(rank !== undefined && { rank }) };
}
