/** Errors of the runs feature: each carries a stable `code` that the CLI prints and tests assert on. */
export type RunErrorCode =
  /** The probes or the harness are missing from the installation. */
  | 'HR_RUN_BUNDLE'
  /** A probe file's header lacks a required field. */
  | 'HR_PROBE_HEADER'
  | 'HR_UNKNOWN_PROBE'
  | 'HR_UNKNOWN_VARIANT'
  /** A target id that no target implements (`local` only, until remote targets exist). */
  | 'HR_UNKNOWN_TARGET'
  | 'HR_UNKNOWN_RUN'
  /** Repeats, ranks, hang window or an environment name out of range or malformed. */
  | 'HR_RUN_ARGUMENT'
  /** The supervisor could not be started on the target. */
  | 'HR_RUN_START';

export class RunError extends Error {
  constructor(
    readonly code: RunErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RunError';
  }
}
