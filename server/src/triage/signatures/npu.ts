/**
 * NPUs: Ascend torch_npu's caching allocator ("NPU out of memory. Tried to allocate ... (NPU 3; ...
 * current active; ...)", and CANN's EL0004), and FuriosaAI RNGD's allocator (seed 003: "failed to
 * allocate N bytes on DRAM_SHARED" with "capacity: 0", a race on a process-global memory-type flag),
 * and Ascend's runtime and HCCL timeouts (hangs).
 */
import { formatBytes } from '../../format';
import { agreeOnFailure, findTheRootRank, processWideLock, shrinkPeak } from '../fixes';
import { ascendSuffixDevice, ascendSuffixRank, inlineRank } from '../ranks';
import { allocatorFinding, allocatorMessageText, parseAllocatorMessage, type AllocatorPlatform } from './allocatorMessage';
import { withoutCiTimestamp } from '../frames';
import type { Finding, LineView, Signature } from './types';

/**
 * The rank an Ascend error names: the line's prefix, `[Rank 3]` in the message, or torch_npu's
 * `(PID:…, Device:…, RankID:N)` suffix on the message or one of the two lines after it.
 */
function ascendRank(line: LineView): number | undefined {
  const own = line.rank ?? inlineRank(line.content) ?? ascendSuffixRank(line.content);
  if (own !== undefined) return own;
  for (let k = 1; k <= 2; k++) {
    const rank = ascendSuffixRank(line.next(k) ?? '');
    if (rank !== undefined) return rank;
  }
  return undefined;
}

/**
 * A Python exception line ("RuntimeError: ...", "torch.distributed.DistBackendError: ...").
 */
const EXCEPTION_LINE = /^\s*(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception)\b[^:]*: /;
/**
 * Lines of the error block torch_npu and CANN print under the exception they explain: the error-code
 * suffix ("[ERROR] 2025-04-08-18:07:20 (PID:…, Device:1, RankID:1) ERR01100 OPS call acl api failed."),
 * CANN codes ("EI0006: …", "EJ0001: …"), and their indented reasons, solutions and "TraceBack" lines.
 */
const ERROR_BLOCK_LINE = /^\s*\[ERROR\]|^\s*E[A-Z]\d{4}[:\s]|^\s+\S/;

/**
 * How many lines up the Python exception this Ascend error line belongs to is printed, when the line
 * is part of the error block under it (0 when the line is the exception itself or none is near).
 */
function exceptionAbove(line: LineView): number {
  if (isExceptionLine(line.content)) return 0;
  for (let k = 1; k <= 8; k++) {
    const prev = line.previous(k);
    if (prev === undefined) return 0;
    if (isExceptionLine(prev)) return k;
    // A CANN code reads as a pdsh host prefix ("EI9999: "), so the line is tested as printed too.
    if (!ERROR_BLOCK_LINE.test(prev) && !ERROR_BLOCK_LINE.test(withoutCiTimestamp(prev))) return 0;
  }
  return 0;
}

/** An exception line, also behind a CI timestamp or a pdsh host prefix ("worker-1: RuntimeError: ..."). */
function isExceptionLine(text: string): boolean {
  return EXCEPTION_LINE.test(withoutCiTimestamp(text));
}

/**
 * The device an Ascend memory error names: torch_npu's suffix (`Device:N`, the local device) on the
 * message or the two lines after it, else CANN's trace under the message ("open device 2 failed",
 * "deviceId=3").
 */
function ascendDevice(line: LineView): number | undefined {
  for (let k = 0; k <= 2; k++) {
    const device = ascendSuffixDevice(k === 0 ? line.content : (line.next(k) ?? ''));
    if (device !== undefined) return device;
  }
  for (let k = 1; k <= 12; k++) {
    const next = line.next(k);
    if (next === undefined || !ERROR_BLOCK_LINE.test(next)) break;
    const m = /\bopen device (\d+) failed|\bdevice_?[Ii]d[=:] ?(\d+)/.exec(next);
    if (m) return Number(m[1] ?? m[2]);
  }
  return undefined;
}

const ASCEND: AllocatorPlatform = {
  signature: 'npu-caching-allocator',
  platform: 'npu',
  label: 'NPU',
  allocConfVar: 'PYTORCH_NPU_ALLOC_CONF',
  expandableSegments: { supported: true, note: ' (needs Ascend HDK 23.0.0 or later).' },
};

const cachingAllocator: Signature = {
  id: ASCEND.signature,
  platform: 'npu',
  needles: ['NPU out of memory', 'ried to allocate'],
  match(line) {
    const msg = parseAllocatorMessage(allocatorMessageText(line));
    if (!msg || (msg.api !== 'NPU' && msg.deviceWord !== 'NPU')) return undefined;
    return allocatorFinding(msg, ASCEND, line.rank ?? ascendSuffixRank(line.next(1) ?? ''));
  },
};

const RT_MALLOC = /Call rtMalloc fail\b.*?\bsize:\s*(\d+),\s*device_id:\s*(\d+)/;
/** CANN's trace line for a failed device allocation ("Failed to allocate resource[DeviceMemory] with info [size:2147483648]. Reason: Memory resources are exhausted."). */
const RESOURCE_SIZE = /\bFailed to allocate resource\[DeviceMemory\] with info \[size:(\d+)\]/;
/** The trace naming HCCL's communication resources as what was being allocated ("… fails to invoke the HcclAllocComResourceByTiling function of the hccl module"). */
const HCCL_RESOURCE = /\bHcclAllocComResource\w*|\bfunction of the hccl module\b/;

/** GGML_ABORT's line from ggml's CANN backend ("/path/ggml/src/ggml-cann/ggml-cann.cpp:65: CANN error"). */
const GGML_CANN_ABORT = /\bggml-cann\.cpp:\d+: CANN error\b/;

const ascendRuntime: Signature = {
  id: 'ascend-memory-allocation-failure',
  platform: 'npu',
  needles: ['EL0004', 'Memory_Allocation_Failure'],
  match(line) {
    const rank = ascendRank(line);
    // CANN's trace under the code names the failed call: "Call rtMalloc fail, purpose: page caching, type = 2,
    // size:3221291008, device_id:0[FUNC:Alloc][FILE:device_allocator.cc]" (the first is the request).
    let malloc: RegExpExecArray | null = null;
    for (let k = 1; k <= 8 && !malloc; k++) malloc = RT_MALLOC.exec(line.next(k) ?? '');
    // Its trace may instead name the resource ("Failed to allocate resource[DeviceMemory] with info [size:N]"), and
    // whether HCCL's communication resources were being allocated (an MC2 fused op's HcclAllocComResourceByTiling).
    let resource: RegExpExecArray | null = null;
    let hccl = false;
    for (let k = 1; k <= 8; k++) {
      const next = line.next(k) ?? '';
      resource ??= RESOURCE_SIZE.exec(next);
      hccl ||= HCCL_RESOURCE.test(next);
    }
    const requested = malloc ? Number(malloc[1]) : resource ? Number(resource[1]) : undefined;
    // torch_npu prints its error and suffix ("NPU function error: … error code is 207001" over "(PID:P, Device:N,
    // RankID:R) ERR00100 …", behind a "[rankN]:" prefix) just above the EL0004 block that explains it.
    let device = ascendDevice(line) ?? (malloc ? Number(malloc[2]) : undefined);
    let aboveRank: number | undefined;
    for (let k = 1; k <= 4; k++) {
      const prev = line.previous(k) ?? '';
      device ??= ascendSuffixDevice(prev);
      if (aboveRank === undefined && /NPU function error|error code is/.test(prev)) aboveRank = line.previousRank(k);
      // The suffix's own RankID when no prefix names the rank.
      aboveRank ??= ascendSuffixRank(prev);
    }
    const ownRank = rank ?? aboveRank;
    // llama.cpp/ggml's CANN backend aborts on a failed ACL call (ggml-cann.cpp ggml_cann_error: "CANN error: <message>", then
    // GGML_ABORT's "<path>/ggml-cann.cpp:N: CANN error"), as its CUDA backend does: GGML_ABORT's line is printed around the code.
    let ggmlAbort = false;
    for (let k = 1; k <= 3 && !ggmlAbort; k++) ggmlAbort = GGML_CANN_ABORT.test(line.previous(k) ?? '') || GGML_CANN_ABORT.test(line.next(k) ?? '');
    if (ggmlAbort && !hccl) {
      return {
        signature: 'ascend-memory-allocation-failure',
        role: 'failure',
        kind: 'runtime-abort',
        platform: 'npu',
        catchable: false,
        summary: 'llama.cpp/ggml aborted: Ascend NPU memory allocation failure (EL0004)' + (requested !== undefined ? `: ${formatBytes(requested)} requested` : ''),
        explanation: 'The CANN runtime could not allocate device memory, and ggml\'s CANN backend checks every ACL call and aborts the process when one fails, so nothing could catch it.',
        ...(device !== undefined && { device }),
        ...(ownRank !== undefined && { rank: ownRank }),
        numbers: requested !== undefined ? { requestedBytes: requested } : {},
        fixes: [shrinkPeak('what llama.cpp keeps on the NPU (offloaded layers -ngl, context size -c, batch)')],
      };
    }
    return {
      signature: 'ascend-memory-allocation-failure',
      role: 'failure',
      kind: hccl ? 'collective-oom' : 'catchable-oom',
      platform: 'npu',
      catchable: !hccl,
      summary: (hccl ? 'Ascend NPU memory allocation failure for HCCL communication resources (EL0004)' : 'Ascend NPU memory allocation failure (EL0004)') + (requested !== undefined ? `: ${formatBytes(requested)} requested` : ''),
      explanation: hccl
        ? 'The CANN runtime could not allocate device memory for HCCL\'s communication resources (the trace names HcclAllocComResource), outside the caching allocator; the collective cannot run.'
        : 'The CANN runtime could not allocate device memory outside the caching allocator.',
      ...(device !== undefined && { device }),
      ...(ownRank !== undefined && { rank: ownRank }),
      numbers: requested !== undefined ? { requestedBytes: requested } : {},
      fixes: [shrinkPeak()],
    };
  },
};

/**
 * CANN's HCCL error EI0011 (Resource_Error_Insufficient_Device_Memory, HCCL's error-code table: "Failed to
 * allocate %s bytes of NPU memory.", "Possible Cause: Allocation failure due to insufficient NPU memory."):
 * HCCL could not get device memory for a collective's workspace or buffers. The size is an exact count
 * ("[size:1678770176]", "262144") or a range ("262144~3145728", "[size: [0.25MB, 3MB], …]"), which gives no
 * request. Its code line may be cut off an excerpt; the message names the NPU by itself.
 */
const HCCL_NPU_MEMORY = /Failed to allocate (?:\[size: ?(\d+)\]|(\d+)|.*?) bytes of NPU memory/;

const hcclDeviceMemory: Signature = {
  id: 'hccl-insufficient-device-memory',
  platform: 'npu',
  needles: ['bytes of NPU memory'],
  match(line) {
    const m = HCCL_NPU_MEMORY.exec(line.content);
    if (!m) return undefined;
    const size = m[1] ?? m[2];
    const rank = ascendRank(line);
    const device = ascendDevice(line);
    return {
      signature: 'hccl-insufficient-device-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'npu',
      catchable: true,
      summary: 'Ascend NPU out of memory: HCCL could not allocate device memory (EI0011)' + (size !== undefined ? `: ${formatBytes(Number(size))} requested` : ''),
      explanation: 'HCCL asked the CANN runtime for device memory (a collective\'s workspace or buffers) and the NPU had no room: the error reaches the program as an exception.',
      ...(device !== undefined && { device }),
      ...(rank !== undefined && { rank }),
      numbers: size !== undefined ? { requestedBytes: Number(size) } : {},
      fixes: [shrinkPeak()],
    };
  },
};

const RNGD_FAILED = /failed to allocate (\d+) bytes on (DRAM_SHARED|DRAM)/;
const RNGD_REQUIRED = /Failed to alloc dram shared, required: (\d+)/;

/** FuriosaAI RNGD. With capacity 0 the pool does not exist on this card: the allocation was misrouted. */
const rngd: Signature = {
  id: 'rngd-dram-allocation',
  platform: 'npu',
  needles: ['DRAM_SHARED', 'Failed to alloc dram shared', 'failed to allocate'],
  match(line) {
    const failed = RNGD_FAILED.exec(line.content);
    const required = RNGD_REQUIRED.exec(line.content);
    if (!failed && !required) return undefined;
    const requested = Number((failed ?? required)![1]);
    const capacity = /capacity: (\d+)/.exec(line.content);
    const shared = !failed || failed[2] === 'DRAM_SHARED';
    const zeroCapacity = capacity?.[1] === '0' || shared;
    return {
      signature: 'rngd-dram-allocation',
      role: 'failure',
      kind: 'catchable-oom',
      platform: 'npu',
      catchable: true,
      summary: `RNGD could not allocate ${formatBytes(requested)} on ${shared ? 'DRAM_SHARED' : 'DRAM'}`,
      explanation: zeroCapacity
        ? 'DRAM_SHARED has no capacity on a single-chip card, so nothing should be placed there: the allocation was routed to the wrong pool. ' +
          'furiosa-torch keeps the memory type in one process-global flag that every compiled-graph call switches to DRAM_SHARED for a moment; ' +
          'a device allocation from another thread at that moment fails. It looks like an OOM but is a race.'
        : 'The RNGD device DRAM pool had no room for the request.',
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers: { requestedBytes: requested, ...(capacity && { deviceTotalBytes: Number(capacity[1]) }) },
      fixes: zeroCapacity ? [processWideLock, shrinkPeak()] : [shrinkPeak()],
      facts: { group: 'rngd-dram' },
    };
  },
};

/**
 * Ascend's timeouts, its analogue of the NCCL watchdog: work queued on the device (usually an HCCL
 * collective waiting for a rank that never arrived) did not finish in time. The runtime prints an
 * ACL error code (acl_base.h: 507046 ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507047 _EVENT_SYNC_TIMEOUT,
 * 507048 _FFTS_PLUS_TIMEOUT, 107020 _TASK_TIMEOUT; "NPU function error: aclrtSynchronizeDevice,
 * error code is 507046", "NPU error, error code is 107020"), CANN's "EE1002: Stream synchronize
 * timeout" / "reason=[stream sync timeout]", and HCCL its own codes: EI0002, a Notify wait that
 * timed out inside a collective (HCCL_EXEC_TIMEOUT), and EI0006, a socket that a peer never
 * connected to (HCCL_CONNECT_TIMEOUT).
 */
const TIMEOUT_CODE = /error code is (?:50704[678]|107020)\b|ACL_ERROR_RT_STREAM_SYNC_TIMEOUT/;
/**
 * CANN's own line for a synchronize that timed out, printed in the EH9999 block where torch_npu prints
 * "ERR00100 PTA call acl api failed": "rtStreamSynchronizeWithTimeout execute failed, reason=[fftsplus
 * timeout]" (also "[stream sync timeout]", "[task timeout]"), with "runtime result = 507048" below it.
 */
const SYNC_WITH_TIMEOUT = /SynchronizeWithTimeout execute failed, reason=\[([^\]]*timeout[^\]]*)\]/;
const STREAM_SYNC = /Stream synchronize timeout|stream sync timeout/;
const HCCL_TIMEOUT = /\bEI000([26])\b/;
/**
 * The device's own report of an HCCL task that waited past HCCL_EXEC_TIMEOUT, printed in an EI9999 block: "The error from
 * device(chipId:5, dieId:0), serial number is 17, hccl fftsplus task timeout occurred during task execution, … stuck notify
 * num:3, timeout:1836". The chip is the device. Under a timeout code line (507048, "[fftsplus timeout]") it is that line's detail.
 * No anchor of the hot scan is on it, so the tail pass reads it (tailAscendTaskTimeout), ahead of the generic exception
 * torch_npu raised for it ("RuntimeError: ACL stream synchronize failed."). A kernel that ran past the AI core's or the
 * vector core's timeout reads the same ("Kernel task happen error, retCode=0x30, [vector core timeout]", "[aicore timeout]",
 * "The aicore execution times out.", ACL's 507014 and 507034): the device's work never finished; the chip is named in the
 * error block around it.
 */
const FFTS_TASK_TIMEOUT = /\bhccl fftsplus task timeout occurred\b|\[(?:vector core|aicore) timeout\]|\bThe aicore execution times out\b|\bfailed: 5070[13]4\b/;
const CHIP_ID = /\bThe error from device\(chipId:(\d+)/;
const timeoutLine = (text: string): boolean => HCCL_TIMEOUT.test(text) || TIMEOUT_CODE.test(text) || SYNC_WITH_TIMEOUT.test(text) || STREAM_SYNC.test(text);

const ascendTimeout: Signature = {
  id: 'ascend-timeout',
  platform: 'npu',
  needles: [
    'error code is 507046',
    'error code is 507047',
    'error code is 507048',
    'error code is 107020',
    'ACL_ERROR_RT_STREAM_SYNC_TIMEOUT',
    'Stream synchronize timeout',
    'stream sync timeout',
    'EI0002',
    'EI0006',
    'SynchronizeWithTimeout execute failed',
  ],
  match(line) {
    const hccl = HCCL_TIMEOUT.exec(line.content);
    const code = TIMEOUT_CODE.exec(line.content);
    const sync = SYNC_WITH_TIMEOUT.exec(line.content);
    const streamSync = STREAM_SYNC.test(line.content);
    const task = !hccl && !code && !sync && !streamSync && FFTS_TASK_TIMEOUT.test(line.content);
    if (!hccl && !code && !sync && !streamSync && !task) return undefined;
    if (task) for (let k = 1; k <= 6; k++) if (timeoutLine(line.previous(k) ?? '')) return undefined;
    let chip = task ? CHIP_ID.exec(line.content) : null;
    for (let k = 1; k <= 4 && task && !chip; k++) chip = CHIP_ID.exec(line.previous(k) ?? '') ?? CHIP_ID.exec(line.next(k) ?? '');
    const above = exceptionAbove(line);
    const rank = ascendRank(line) ?? (above > 0 ? ascendSuffixRank(line.previous(above - 1) ?? '') : undefined);
    const what = hccl
      ? hccl[1] === '2'
        ? 'HCCL collective timed out waiting for a peer (EI0002, Notify wait)'
        : 'HCCL could not connect to a peer in time (EI0006, socket timeout)'
      : task
        ? /fftsplus/.test(line.content) ? 'HCCL task timed out on the device waiting for a peer (fftsplus task timeout)' : 'A kernel on the NPU ran past its timeout (AI core or vector core): the device work never finished'
        : `Ascend ${code ? `runtime timeout (${code[0].replace('error code is ', '')})` : sync ? `runtime timeout (${sync[1]})` : 'stream synchronize timeout'}: queued device work never finished`;
    return {
      signature: 'ascend-timeout',
      role: 'timeout',
      kind: 'hang',
      platform: 'npu',
      catchable: false,
      summary: what,
      explanation:
        'The NPU runtime waited past its timeout. In distributed jobs it is an HCCL collective (or its connection) waiting for a rank that failed earlier, ' +
        'took another code path, or is still busy; a hung device does the same. The process cannot continue.',
      ...(rank !== undefined && { rank }),
      ...(chip && { device: Number(chip[1]) }),
      numbers: {},
      fixes: [
        findTheRootRank,
        { id: 'ascend-plog', title: 'Read the device logs (plog under ~/ascend/log, ASCEND_GLOBAL_LOG_LEVEL=1) of every rank for the first error before the timeout', rationale: 'The runtime names the stream or collective that timed out, not the task or rank that stopped it.', snippet: 'export ASCEND_GLOBAL_LOG_LEVEL=1' },
        agreeOnFailure,
      ],
      // Raised in the thread that waited: the exception's traceback shows where the program was.
      ...((above > 0 || isExceptionLine(line.content)) && { raised: true, framesAbove: above }),
    };
  },
};

/**
 * torch_npu's HCCL failure: "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/
 * ProcessGroupHCCL.cpp:64" (HCCL_CHECK_ERROR: "HCCL error in: " + file:line, the error-code suffix,
 * and CANN's message for the failure, e.g. "EJ0001: … Failed to initialize the HCCP process"). The
 * HCCL analogue of "NCCL error in:": not an OOM by itself; it joins the hang it belongs to, and an
 * out-of-memory code in its block (EL0004) is read by its own signature.
 */
const hcclError: Signature = {
  id: 'hccl-error',
  platform: 'npu',
  // torch_npu's HCCL_CHECK_ERROR ("HCCL error in: …") and its communicator setup ("HCCL function error:
  // hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 15").
  needles: ['HCCL error in:', 'HCCL function error:'],
  match(line) {
    if (!/HCCL error in: |HCCL function error: /.test(line.content)) return undefined;
    let code: RegExpExecArray | null = null;
    for (let k = 1; k <= 4 && !code; k++) code = /\b(E[A-Z]\d{4}):\s*(?:\[PID: ?\d+\]\s*)?(?:\d{4}-[\d:.-]+\s+)?([^.]*)/.exec(line.next(k) ?? '');
    const rank = ascendRank(line);
    // torch_npu's error-code suffix under the message names the local device, as for its memory errors.
    const device = ascendDevice(line);
    return {
      signature: 'hccl-error',
      ...(device !== undefined && { device }),
      role: 'nccl-error',
      kind: 'not-oom',
      platform: 'npu',
      catchable: true,
      summary: `HCCL call failed${code ? ` (${code[1]}: ${code[2]!.trim()})` : ''}`,
      explanation:
        'An HCCL call returned an error, which torch_npu raised. ' +
        (code ? `CANN reported ${code[1]}: ${code[2]!.trim()}. ` : '') +
        'It is not a memory failure: a peer, the HCCP process or the network between the NPUs failed (a previous job still holding the devices is a common cause at initialization).',
      ...(rank !== undefined && { rank }),
      numbers: {},
      fixes: [
        findTheRootRank,
        { id: 'ascend-plog', title: 'Read the device logs (plog under ~/ascend/log, ASCEND_GLOBAL_LOG_LEVEL=1) of every rank for the first error', rationale: 'CANN logs the failing HCCL step and its reason there.', snippet: 'export ASCEND_GLOBAL_LOG_LEVEL=1' },
      ],
    };
  },
};


/**
 * MindSpore's dynamic memory pool (mindspore/ccsrc/backend/common/mem_reuse/mem_dynamic_allocator.cc):
 * "TotalUsedMemStatistics : 29356337664 plus TotalUsedByEventMemStatistics : 0 and plus alloc size :
 * 301990400 is more than total mem size : 29464985600." (bytes), and the device context's "Device(id:0)
 * memory isn't enough and alloc failed, kernel name: …, alloc size: 301990400B." MindSpore runs on Ascend
 * here unless the log's paths say its GPU plugin.
 */
const MS_POOL = /TotalUsedMemStatistics : (\d+) plus TotalUsedByEventMemStatistics : (\d+) and plus alloc size : (\d+) is more than total mem size : (\d+)/;
const MS_DEVICE = /Device\(id:(\d+)\) memory isn't enough and alloc failed(?:, kernel name: ([^,]*))?, alloc size: (\d+)B/;

const mindsporeOom: Signature = {
  id: 'mindspore-out-of-memory',
  platform: 'npu',
  needles: ['plus alloc size', "memory isn't enough and alloc failed"],
  match(line) {
    const pool = MS_POOL.exec(line.content);
    const dev = pool ? null : MS_DEVICE.exec(line.content);
    if (!pool && !dev) return undefined;
    const numbers: Finding['numbers'] = pool
      ? { requestedBytes: Number(pool[3]), allocatedBytes: Number(pool[1]), deviceTotalBytes: Number(pool[4]) }
      : { requestedBytes: Number(dev![3]) };
    const gpu = /plugin\/device\/gpu|\bGPU\b/.test(line.content);
    return {
      signature: 'mindspore-out-of-memory',
      role: 'failure',
      kind: 'catchable-oom',
      platform: gpu ? 'cuda' : 'npu',
      catchable: true,
      summary: `MindSpore out of device memory: ${formatBytes(numbers.requestedBytes!)} requested` + (pool ? `, ${formatBytes(Number(pool[1]))} of ${formatBytes(Number(pool[4]))} in use` : ''),
      explanation:
        'MindSpore\'s memory pool could not serve the request: what the graph or the eager ops hold, plus the request, exceeds the pool\'s total (max_device_memory). ',
      ...(dev && { device: Number(dev[1]) }),
      ...(line.rank !== undefined && { rank: line.rank }),
      numbers,
      fixes: [shrinkPeak(), { id: 'ms-max-device-memory', title: 'Check the pool size: mindspore.set_context(max_device_memory="…GB") (or runtime.set_memory(max_size=…)) up to what the device has', rationale: 'The pool never grows past max_device_memory, even with device memory free.' }],
    };
  },
};

export const signatures: readonly Signature[] = [cachingAllocator, ascendRuntime, hcclDeviceMemory, mindsporeOom, rngd, ascendTimeout, hcclError];

/** The device's HCCL task timeout (FFTS_TASK_TIMEOUT), read by the tail pass: the error itself, ahead of the exception raised for it. */
export const tailAscendTaskTimeout: Signature = {
  ...ascendTimeout,
  needles: ['fftsplus task timeout', 'core timeout]', 'aicore execution times out', 'failed: 5070'],
  match(line) {
    const f = ascendTimeout.match(line);
    return f && { ...f, facts: { ...f.facts, tier: 2 } };
  },
};
