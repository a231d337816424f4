/**
 * The last resort, after the tail pass (otherFailure.ts) found nothing: a log that ends on a failure stated in words
 * ("ERROR: …", "… failed", "fatal: …", "tasks 0-3: Terminated", "panic: …") or on memory running out, in a form no
 * signature reads. The issue asks for a verdict on any crash output, "not an OOM" included, and a healthy run's output
 * must get no failure (only the engine's no-failure verdict); so the engine (lastResort) reads only the lines after the
 * last sign that the run went on or finished
 * (RUN_WENT_ON), among the final STATED_FAILURE_LINES non-empty lines:
 * - the last line there that says memory ran out (statesOomAtEnd) is the failure, read by the other-OOM fallback, ahead
 *   of a failure stated within OOM_BEFORE_FAILURE_LINES after it (the errors printed under an OOM are its consequences);
 * - else the last line that states a failure (statesFailure) is a not-oom at that line, unless it is about memory or a
 *   kill: an unread memory failure is not to be called "not an OOM".
 */
import type { Signature } from './types';
import { quote } from './nativeFailure';
import { lookAtFailure, notOomFinding } from './otherFailure';
import { statesOom } from './otherOom';

/** How many non-empty lines, from the end of the retained tail, may hold the stated failure. */
export const STATED_FAILURE_LINES = 25;

/** How far above a stated failure an out-of-memory line may be and still be its cause. */
export const OOM_BEFORE_FAILURE_LINES = 8;

/**
 * Words that state a failure, as whole words (not inside a path or a hyphenated name: "/runs/error-analysis/",
 * "fail-safe"), the dynamic loader's included. "timeout" alone is not one: it names settings and waits.
 */
const STATES_FAILURE = /(?<![\w/.-])(?:errors?|fail|failed|failure|fatal|abort(?:ed|ing)?|exception|died|crash(?:ed)?|terminated|cancell?ed|timed out|panic(?:ked)?|segfault|core dumped|assertion|undefined symbol|cannot open shared object file)(?![\w/-])/i;

/**
 * Log levels below error: their upper-case names as a level (bracketed, at the line's start, between spaces or before a
 * colon; "NCCL_DEBUG=INFO" and "/usr/src/debug/" are none), a line that starts with one in any case ("info: …"), and
 * glog's I/W/D prefix (also c10's older "[W socket.cpp:663]").
 */
const LOW_LOG_LEVEL = /(?:^|[\s[|(])(?:INFO|DEBUG|TRACE|NOTICE)(?=[\]\s:|)]|$)|^\s*\[?[IWD](?:\d{4}\b| [\w.-]+:\d+\])|^\s*\[?(?:[Ii]nfo|[Dd]ebug|[Tt]race|[Nn]otice)\]?\s*[:|-]|\blevel=(?:info|debug|warn(?:ing)?)\b|\[(?:info|debug|trace)\]/;

/**
 * Lines that use failure words without stating that the run failed: warnings (NCCL's WARN is its error level), a value
 * of a metric or a count of errors ("error: 0.05 - val_loss", "val/error 0.0923", "error=nan", "failed: 0", "0 failed",
 * "Error (RMSE): 0.51"; Ray Tune's "4 TERMINATED" is STATE_COUNT), a table row ("| trial_0 | TERMINATED |"), something that ended well ("terminated normally"),
 * a failure that did not happen or was handled (retrying, trying, skipping, ignoring, a handler), a hint before the
 * failure word ("to avoid … errors", "you may see … errors"), an empty error field (docker inspect's "Error": ""), and a C++
 * stack frame ("frame #0: c10::Error::Error(…)"), which names functions and states nothing.
 */
const NOT_A_FAILURE = new RegExp([
  String.raw`(?<!NCCL )\bwarn(?:ing)?s?\b|[a-z]Warning\b`,
  String.raw`\b(?:errors?|failures?|failed)\b["']?\s*[=:]\s*(?:[-+]?\d*\.?\d+(?:e-?\d+)?%?|nan|inf)(?=\s*(?:$|[,;|)\]}]|-\s|[A-Za-z_][\w/.-]*["']?\s*[=:]\s*[-+]?\.?\d))|\berrors?\s+[-+]?\d*\.\d+(?=$|[\s,;|)\]}])|\berror\s*\([^)]{1,12}\)\s*[=:]\s*[-+]?\.?\d`,
  String.raw`\b(?:no|0|zero|without)\s+(?:\w+\s+)?(?:errors?|failures?|failed)\b|\b(?:failed|errors?|failures?|cancell?ed|terminated)\s*:?\s*0\b(?![.\d])|\(\d+ (?:terminated|errors?|failed|cancell?ed)\b[^)]*\)|\b(?:errors?|failures?) (?:counters?|counts?|rates?)\b|\b(?:error|failure)_rate\b`,
  String.raw`^\s*\|.*\|\s*$`,
  String.raw`\b(?:normally|successfully|gracefully|cleanly)\b|\bnot (?:failed|terminated|cancell?ed)\b`,
  String.raw`\b(?:re)?try(?:ing)?\b|\bskip(?:ped|ping)?\b|\bignor(?:e|ed|ing)\b|\bhandlers?\b|\bcontinu(?:e|ing)\b`,
  String.raw`\b(?:to avoid|if|may|might|could (?:be|have))\b.{0,60}?(?<![\w/.-])(?:errors?|fail\w*|crash\w*|abort\w*)\b`,
  String.raw`\berrors?["']?\s*[:=]\s*(?:""|''|null|nil|none|\[\]|\{\})\s*,?\s*$`,
  String.raw`^\s*frame #\d+: `,
].join('|'), 'i');

/** Counts of trials or tasks by state, in the upper case Ray Tune prints them ("4 TERMINATED", "1 ERROR"). */
const STATE_COUNT = /\b\d+ (?:TERMINATED|ERROR|FAILED|CANCELLED|ABORTED)\b/;

/** A stated failure about memory or a kill. Memory corruption, access and faults are not memory running out. */
const ABOUT_MEMORY = /memory(?! corruption| access| fault)|\bOOM\b|\balloc|\bRAM\b|\bswap\b|\bkill(?:ed)?\b|SIGKILL|\bsignal 9\b|\b137\b|resource(?:s)? exhausted/i;

/**
 * A sign that the run went on or ended well after what is above it: a success word, a step or epoch counter (not Slurm's
 * "job step 901.0"), a progress bar. What comes before such a line was recovered from, or was not a failure of the run.
 */
const RUN_WENT_ON = /\b(?:complete[d]?|finished|done|succeeded|successful(?:ly)?|passed)\b|\bOK\b|(?<!job )\b(?:step|epoch|iter(?:ation)?)\s*[:=#]?\s*\d+|\d\s?(?:it\/s|s\/it)\b|(?<!\d)\d+%\|/i;

/**
 * A configuration or option that names the words rather than reports them ('oom_policy = "out of memory -> skip"'); a key that
 * is an error's name ("Error: Out of Memory") reports them.
 */
const NAMES_THE_WORDS = /["'][^"']*(?:out of memory|OutOfMemory)[^"']*["']|^\s*(?![\w.]*(?:error|exception|fatal|failure)\b)[\w.-]+\s*[=:]\s*\S*\s*(?:out of memory|OutOfMemory)/i;

/** Whether a line could state a failure: its words alone, for a cheap first look at a raw line. */
export const mentionsFailure = (content: string): boolean => STATES_FAILURE.test(content) || statesOom(content);

/** Whether the line states a failure (whether or not it is one this fallback may call not-oom). */
export function statesFailure(content: string): boolean {
  return STATES_FAILURE.test(content) && !LOW_LOG_LEVEL.test(content) && !NOT_A_FAILURE.test(content) && !STATE_COUNT.test(content);
}

/** Whether the line says memory ran out, as a report rather than a log level's notice, a handled retry or a setting. */
export function statesOomAtEnd(content: string): boolean {
  return statesOom(content) && !LOW_LOG_LEVEL.test(content) && !NOT_A_FAILURE.test(content) && !NAMES_THE_WORDS.test(content);
}

/** Whether the line shows the run going on or finishing (RUN_WENT_ON). */
export const runWentOn = (content: string): boolean => RUN_WENT_ON.test(content);

export const statedFailure: Signature = {
  id: 'stated-failure',
  platform: 'cpu',
  needles: [],
  match(line) {
    if (!statesFailure(line.content) || ABOUT_MEMORY.test(line.content)) return undefined;
    const finding = notOomFinding(line, 1, `Failure stated near the end of the log: "${quote(line.content)}"`, false, [
      lookAtFailure('the failure the log states near its end'),
    ]);
    finding.signature = 'stated-failure';
    finding.explanation =
      'The log ends on a failure stated in words that no signature Headroom has reads, and nothing near it says memory ran out: ' +
      `"${quote(line.content)}". It is not an out-of-memory error. The lines above it, and the output of whatever printed it, say why it failed.`;
    return finding;
  },
};
