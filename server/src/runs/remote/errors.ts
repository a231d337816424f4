/** Errors of the remote layer: each carries a stable `code` the CLI prints and tests assert on. */
export type RemoteErrorCode =
  /** A word for a shell command holds a NUL byte. */
  | 'HR_SHELL_NUL'
  /** An environment variable name is not a shell identifier. */
  | 'HR_ENV_NAME'
  /** A host name or alias could be read as an ssh option or holds whitespace/control characters. */
  | 'HR_SSH_HOST'
  /** ssh could not connect or lost the connection (ssh exit status 255). */
  | 'HR_SSH_CONNECT'
  /** A remote command failed (non-zero exit); the message holds its stderr. */
  | 'HR_REMOTE_COMMAND'
  /** A remote command did not finish in time. */
  | 'HR_REMOTE_TIMEOUT'
  /** The host's answer could not be understood (e.g. "test connection" output that is not JSON). */
  | 'HR_REMOTE_PROTOCOL'
  /** A Slurm setting (partition, gres, time, account) is malformed. */
  | 'HR_SLURM_SETTING'
  /** A Slurm command failed or a job id was not understood. */
  | 'HR_SLURM';

export class RemoteError extends Error {
  constructor(
    readonly code: RemoteErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}
