/**
 * Headroom's settings, normalized in one place. `package.json` `contributes.configuration` is the
 * schema; this module turns whatever the client sends (possibly nothing, possibly garbage) into a
 * complete, typed object without ever throwing.
 */

export interface HeadroomSettings {
  /** Device catalog name used as the memory plan's target. */
  device: string;
  /** Interpreter for reproducers on the local target. */
  python: string;
  /** Options of the remote targets keyed by target id (`ssh:HOST`, `slurm:PARTITION`); runs/remote/config.ts normalizes each entry. */
  targets: Readonly<Record<string, unknown>>;
  /** Seconds without progress before a run's watchdog calls a hang (a run may ask for another). */
  hangWindowSeconds: number;
}

export const defaultSettings: Readonly<HeadroomSettings> = Object.freeze({
  device: 'H100-80GB',
  python: 'python3',
  targets: {},
  hangWindowSeconds: 10,
});

function nonEmptyString(value: unknown, fallback: string): string {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : fallback;
}

/** A number within [min, max], else the fallback. */
function boundedNumber(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max ? value : fallback;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Normalizes the raw `headroom` configuration section. */
export function normalizeSettings(raw: unknown): HeadroomSettings {
  const section = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>) : {};
  return {
    device: nonEmptyString(section['device'], defaultSettings.device),
    python: nonEmptyString(section['python'], defaultSettings.python),
    targets: isPlainObject(section['targets']) ? section['targets'] : defaultSettings.targets,
    hangWindowSeconds: boundedNumber(section['hangWindowSeconds'], 1, 3600, defaultSettings.hangWindowSeconds),
  };
}
