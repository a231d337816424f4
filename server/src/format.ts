/** The one place sizes become text. Sizes stay integer bytes everywhere else. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/** Formats a byte count in 1024-based units with two decimals, e.g. `formatBytes(1536) === "1.50 KiB"`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return String(bytes);
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${sign}${value} B` : `${sign}${value.toFixed(2)} ${UNITS[unit]}`;
}

/** Binary unit multipliers as printed by PyTorch, XLA and the runtimes (`GiB`, `MiB`, `KiB`, `B`). */
export const UNIT_BYTES: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1024, KIB: 1024,
  MB: 1024 ** 2, MIB: 1024 ** 2,
  GB: 1024 ** 3, GIB: 1024 ** 3,
  TB: 1024 ** 4, TIB: 1024 ** 4,
};

/**
 * Parses a printed size such as `"20.00 MiB"` or `"1.2 GiB"` into bytes (rounded to an integer).
 * PyTorch and the runtimes print 1024-based units even where the label says `GB`.
 * Returns undefined when the unit is unknown.
 */
export function parseSize(amount: string, unit: string): number | undefined {
  const factor = UNIT_BYTES[unit.toUpperCase()];
  const value = Number(amount.replace(/,/g, ''));
  if (factor === undefined || !Number.isFinite(value)) return undefined;
  return Math.round(value * factor);
}
