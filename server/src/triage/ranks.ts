import { isTracebackBody } from './frames';
import type { LineView } from './signatures/types';

/**
 * Rank prefixes that launchers and PyTorch put in front of each line of a multi-process log:
 * `[rank3]:` (torchrun's --log-line-prefix / PyTorch's rank-tagged logging), `[default3]:`
 * (torchrun --tee), `(RayWorkerWrapper pid=4009) [rank1]:` (Ray), `[1787] [rank2]:` (line counters),
 * a first line whose paste lost the prefix's '[' (`rank4]: …`), vLLM v1's worker prefix `(VllmWorker rank=1 pid=2978)`, Ray's
 * actor prefix when the actor's repr carries its rank (NeMo-RL's `(MegatronPolicyWorker[rank=107] pid=3340050, ip=10.1.107.221)`:
 * Ray prints the actor's __repr__ before pid), and
 * Open MPI's `mpirun --tag-output` prefix `[1,3]<stderr>:` (the job id, then the MPI_COMM_WORLD rank; Horovod's
 * mpirun launcher sets it, and orterun/prterun's output filter writes `<stdout>`, `<stderr>` or `<stddiag>`), and Determined's
 * trial log prefix `[rank=0] ` (after its container field, `[] [rank=0] RuntimeError: …`). Process prefixes that print no rank
 * (`(EngineCore_0 pid=…)`, `(Worker_TP1 pid=…)`, `(RayWorkerWrapper pid=…)`) give none: a TP index is
 * a rank within one group, not the global rank.
 */

/** A rank prefix near the start of a line, with whatever launcher noise comes before it. */
const PREFIX = /^(?:.{0,120}?)\[(?:rank|default)(\d+)\]:\s?|^(?:rank|default)(\d+)\]:\s?|^\([\w.-]+(?: rank=|\[rank=)(\d+)\]? pid=\d+[^)]*\)\s?|^\[\d+,(\d+)\]<std(?:out|err|diag)>:\s?|^(?:\[[^\]]*\] )?\[rank=(\d+)\]\s/;

export interface RankedLine {
  /** The global rank named by the prefix, when there is one. */
  rank?: number;
  /** The line without the prefix (and without anything printed before the prefix). */
  content: string;
}

/**
 * The service prefix docker compose puts before each line it relays (`rasa_1      | `, `llama-cpp    | `: the service name
 * padded to the longest, then "| "). It names no rank; it is taken off so the line reads as the program printed it. A log
 * level in that place is loguru's column (`ERROR    | module:fn:12 - …`), not a service.
 */
const COMPOSE_PREFIX = /^(?!(?:ERROR|WARN|WARNING|INFO|DEBUG|TRACE|CRITICAL|SUCCESS|FATAL)\s)[A-Za-z0-9][\w.-]*\s+\| /;

/** Splits a rank prefix (and a docker compose service prefix before it) off a line. */
export function splitRank(raw: string): RankedLine {
  const compose = COMPOSE_PREFIX.exec(raw);
  const line = compose ? raw.slice(compose[0].length) : raw;
  const match = PREFIX.exec(line);
  if (!match) return { content: line };
  return { rank: Number(match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5]), content: line.slice(match[0].length) };
}

/**
 * Ranks named inside messages rather than in a prefix: `[Rank 3]`, `[Rank:7]`, `[PG ID 2 PG GUID 3 Rank 1]`
 * (ProcessGroupNCCL), axolotl's logger field `[RANK:1]`, Ray's task error naming the actor by its repr when that carries its rank
 * ("RayTaskError(OutOfMemoryError): ray::Worker.step() (pid=…, ip=…, actor_id=…, repr=Worker[rank=0])"), ProcessGroupNCCL's failure to fetch the NCCL unique id
 * from the store, which starts with the rank that asked (broadcastUniqueNCCLID; older releases spell it "retreiving": "[2] is setting up NCCL communicator and
 * retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: …"), and
 * ProcessGroupWrapper's collective check (TORCH_DISTRIBUTED_DEBUG=DETAIL), whose error names the rank that raised it first:
 * "Detected mismatch between collectives on ranks. Rank 3 is running collective: CollectiveFingerPrint(…), but Rank 0 is
 * running collective: …" (newer releases "Rank 3 is running inconsistent collective: …").
 */
const INLINE = /\[(?:PG[^\]]*?\s)?(?:Rank|RANK)[ :](\d+)\]|\brepr=[\w.]+\[rank=(\d+)\]\)|\[(\d+)\] is setting up NCCL communicator and retr(?:ie|ei)ving ncclUniqueId from \[\d+\]|\bDetected mismatch between collectives on ranks\. Rank (\d+) is running\b/;

/** The rank a message names about itself, when it has no prefix. */
export function inlineRank(content: string): number | undefined {
  const match = INLINE.exec(content);
  return match ? Number(match[1] ?? match[2] ?? match[3] ?? match[4]) : undefined;
}

/**
 * torch_npu's error-code suffix, printed on the line after the exception it explains:
 * `[ERROR] 2025-06-25-10:45:23 (PID:13075, Device:0, RankID:8) ERR00100 PTA call acl api failed`.
 * RankID is the global rank (-1 outside a distributed job, which gives none); Device is local.
 */
const ASCEND_SUFFIX = /\(PID:\d+, Device:(\d+), RankID:(-?\d+)\)/;

/** The global rank in torch_npu's error-code suffix, when the text has one (none for -1). */
export function ascendSuffixRank(content: string): number | undefined {
  const match = ASCEND_SUFFIX.exec(content);
  return match && Number(match[2]) >= 0 ? Number(match[2]) : undefined;
}

/** The local device in torch_npu's error-code suffix, when the text has one. */
export function ascendSuffixDevice(content: string): number | undefined {
  const match = ASCEND_SUFFIX.exec(content);
  return match ? Number(match[1]) : undefined;
}

/**
 * torch.multiprocessing.spawn's report of a child's exception (spawn.py: ProcessRaisedException's message "-- Process 2
 * terminated with the following error:" over the child's own traceback): the process index, which mp.spawn(fn,
 * nprocs=world_size) passes to fn as its rank.
 */
const SPAWN_PROCESS = /^\s*-- Process (\d+) terminated with the following error:\s*$/;

/** The spawn index over the traceback whose header is `k` lines above `line` (0: the line itself), when it has one. */
export function spawnRank(line: LineView, k: number): number | undefined {
  for (let j = k + 1; j <= k + 2; j++) {
    const above = line.previous(j);
    if (above === undefined) return undefined;
    const m = SPAWN_PROCESS.exec(above);
    if (m) return Number(m[1]);
    if (above.trim() !== '') return undefined;
  }
  return undefined;
}

/**
 * The rank of the process whose traceback ends at this exception line (its header up to 300 lines above, every line between
 * them part of that traceback: a later run's failure under an earlier one's traceback is not that process's): the spawn
 * index over the header, or the rank the header's own line names when a logger tagged it and not the lines under it
 * (`[RANK 0] 2026-06-18 23:04:10,812 [ERROR] Traceback (most recent call last):`, logging.exception's record, whose
 * formatted traceback goes on untagged).
 */
export function tracebackRankAbove(line: LineView): number | undefined {
  for (let k = 1; k <= 300; k++) {
    const above = line.previous(k);
    if (above === undefined) return undefined;
    if (/^\s*Traceback \(most recent call last\):?\s*$/.test(above)) return spawnRank(line, k);
    const header = /^(.*\S)\s+Traceback \(most recent call last\):?\s*$/.exec(above);
    if (header) return line.previousRank(k) ?? inlineRank(header[1]!);
    if (above.trim() !== '' && !isTracebackBody(above)) return undefined;
  }
  return undefined;
}
