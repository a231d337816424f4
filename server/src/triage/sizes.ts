/**
 * Sizes as the runtimes print them, turned into integer bytes. Every runtime Headroom reads prints
 * binary (1024-based) multiples, whatever the label says: PyTorch's `GiB`, MPS's `GB`, XLA's bare
 * `G`, the kernel's `kB`. The value is rounded the way it was printed, then multiplied:
 * `"2.26 GiB"` -> round(2.26 * 2^30).
 */

const FACTORS: Readonly<Record<string, number>> = {
  b: 1, byte: 1, bytes: 1,
  k: 1024, kb: 1024, kib: 1024,
  m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3,
  t: 1024 ** 4, tb: 1024 ** 4, tib: 1024 ** 4,
  p: 1024 ** 5, pb: 1024 ** 5, pib: 1024 ** 5,
  e: 1024 ** 6, eb: 1024 ** 6, eib: 1024 ** 6,
};

/**
 * Regex source for one printed size: a number, optional space, a unit. Two capture groups. It starts only where a number
 * starts: inside a long run of digits every other start would scan the run again (quadratic time on a 60,000-digit line).
 */
export const SIZE = String.raw`(?<![\d,])([\d][\d,]*(?:\.\d+)?)\s?(bytes|byte|[KMGTP]iB|[kKMGTP]B|[KMGTP]|B)\b`;

/** Bytes for an amount and unit captured by {@link SIZE}; undefined for an unknown unit or a non-number. */
export function toBytes(amount: string, unit: string): number | undefined {
  const factor = FACTORS[unit.toLowerCase()];
  const value = Number(amount.replace(/,/g, ''));
  if (factor === undefined || !Number.isFinite(value)) return undefined;
  return Math.round(value * factor);
}

/** Parses a whole printed size such as `"20.00 MiB"`, `"0 bytes"` or `"15.48G"`. */
export function parseSizeText(text: string): number | undefined {
  const match = new RegExp(`^\\s*${SIZE}\\s*$`).exec(text);
  return match ? toBytes(match[1]!, match[2]!) : undefined;
}

/** True when a byte count can be carried exactly in a JS number (PyTorch prints SIZE_MAX for "no limit"). */
export function isExact(bytes: number): boolean {
  return Number.isSafeInteger(bytes);
}
