/**
 * The last resort, after the tail pass (otherFailure.ts) found nothing: a log whose last lines say in words that
 * something failed ("ERROR: …", "… failed", "fatal: …", "Job … CANCELLED …", "tasks 0-3: Terminated", "panic: …")
 * in a form no signature reads. The issue asks for a verdict on any crash output, "not an OOM" included; a failure
 * stated with nothing about memory in it is not an out-of-memory error, and the line that states it is where to look.
 *
 * Only the last STATED_FAILURE_LINES non-empty lines are read, and only the last line that states a failure counts:
 * an ordinary log mentions errors it recovered from, but a log that ends on a failure stated it near its end. When
 * that last statement is about memory or a kill ("failed to allocate", "Killed"), nothing is said: an unread memory
 * failure is not to be called "not an OOM".
 */
import type { Signature } from './types';
import { lookAtFailure, notOomFinding } from './otherFailure';

/** How many non-empty lines, from the end of the retained tail, may hold the stated failure. */
export const STATED_FAILURE_LINES = 25;

/**
 * Words that state a failure (whole words, any case), the dynamic loader's included. "timeout" alone is not one: it names
 * settings and waits.
 */
const STATES_FAILURE = /\b(?:errors?|fail|failed|failure|fatal|abort(?:ed|ing)?|exception|died|crash(?:ed)?|terminated|cancell?ed|timed out|panic(?:ked)?|segfault|core dumped|assertion|undefined symbol|cannot open shared object file)\b/i;

/**
 * Lines that use those words without stating a failure: warnings (NCCL's WARN is its error level), counts and metrics of errors, a
 * failure that did not happen, hints ("to avoid … errors"), and an empty error field (docker inspect's "Error": "").
 */
const NOT_A_FAILURE = /\blevel=(?:info|debug|warn(?:ing)?)\b|\[(?:info|debug|trace)\]|(?<!NCCL )\bwarn(?:ing)?s?\b|[a-z]Warning\b|\b(?:no|0|zero|without|ignor(?:e|ed|ing)|retry(?:ing)?|to avoid|if)\b[\w ]{0,12}\b(?:errors?|failures?)\b|\b(?:no|0|zero) \w+s failed\b|\b(?:ignor(?:e|ed|ing)|retry(?:ing)?)\b[\w ]{0,12}\bfailed\b|\b(?:errors?|failures?)(?:[ _]?(?:rate|count|total|sum|avg|mean|pct|percent))?\s*[=:]\s*[-+]?\d[\d.e+-]*(?![\w.])%?\s*(?:$|[,;|)\]]|[A-Za-z_]\w*\s*[=:])|\b(?:errors?|failures?) (?:counters?|counts?|rates?)\b|\b(?:error|failure)_rate\b|\bnot (?:failed|terminated|cancell?ed)\b|\berrors?["']?\s*[:=]\s*(?:""|''|null|nil|none|\[\]|\{\})\s*,?\s*$/i;

/**
 * Log levels below error: their upper-case names (a path's "/usr/src/debug/" is none), a line that starts with one in any
 * case ("info: …"), and glog's I/W/D prefix.
 */
const LOW_LOG_LEVEL = /\b(?:INFO|DEBUG|TRACE|NOTICE)\b|^\s*\[?[IWD]\d{4}\b|^\s*\[?(?:[Ii]nfo|[Dd]ebug|[Tt]race|[Nn]otice)\]?\s*[:|-]/;

/**
 * A stated failure about memory or a kill: an OOM or host kill no signature read, which is not "not an OOM". Memory
 * corruption, access and faults are not memory running out.
 */
const ABOUT_MEMORY = /memory(?! corruption| access| fault)|\bOOM\b|\balloc|\bRAM\b|\bswap\b|\bkill(?:ed)?\b|SIGKILL|\bsignal 9\b|\b137\b|resource(?:s)? exhausted/i;

/** Whether the line states a failure at all (whether or not it is one this fallback may call not-oom). */
export function statesFailure(content: string): boolean {
  return STATES_FAILURE.test(content) && !LOW_LOG_LEVEL.test(content) && !NOT_A_FAILURE.test(content);
}

const quoted = (content: string): string => {
  const text = content.trim();
  return text.length > 160 ? `${text.slice(0, 157)}…` : text;
};

export const statedFailure: Signature = {
  id: 'stated-failure',
  platform: 'cpu',
  needles: [],
  match(line) {
    if (!statesFailure(line.content) || ABOUT_MEMORY.test(line.content)) return undefined;
    const finding = notOomFinding(line, 1, `Failure stated near the end of the log: "${quoted(line.content)}"`, false, [
      lookAtFailure('the failure the log states near its end'),
    ]);
    finding.signature = 'stated-failure';
    finding.explanation =
      'The log ends on a failure stated in words that no signature Headroom has reads, and nothing near it says memory ran out: ' +
      `"${quoted(line.content)}". It is not an out-of-memory error. The lines above it, and the output of whatever printed it, say why it failed.`;
    return finding;
  },
};

