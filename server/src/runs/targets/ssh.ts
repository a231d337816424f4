/**
 * The ssh target (`ssh:HOST`): a machine reached with the system OpenSSH client, HOST being an
 * alias from the ssh config or `[user@]hostname`. The bundle goes to `<remoteRoot>/<runId>` on the
 * host; the supervisor runs there under setsid/nohup with its own log files, so it keeps going
 * when the link drops; the server follows it by byte offset and re-attach collects the rest.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { TargetEnvironment } from '../../protocol';
import type { RemoteTargetOptions } from '../remote/config';
import { groupAliveTest, launch } from '../remote/detached';
import { testConnection, type ConnectionReport } from '../remote/environment';
import { follow, killRunProcesses, readRemoteInfo, startRemoteRun, SUPERVISOR, type RemoteDriver } from '../remote/session';
import { SshTransport } from '../remote/ssh';
import { RunError } from '../errors';
import type { RunBundle, RunPlan, StartOptions, SupervisorEvent, Target, TargetSession } from './target';

/** A target whose runs live on after the server loses them, and can be followed again. */
export interface AttachableTarget extends Target {
  /** Follows the run stored in `localRunDir` from where its local copies end. */
  attach(localRunDir: string, onEvent: (event: SupervisorEvent) => void): TargetSession;
  /** "Test connection", with the time it took and why torch is missing when it is. */
  testConnection(python: string, bundle: RunBundle): Promise<ConnectionReport>;
}

/** The plan as the host must see it: the target's interpreter, environment and working directory. */
export function planForHost(plan: RunPlan, options: RemoteTargetOptions): RunPlan {
  const { cwd: _localCwd, ...rest } = plan;
  return {
    ...rest,
    python: options.python ?? plan.python,
    env: { ...options.env, ...plan.env },
    // A local working directory means nothing on the host; only the target's own applies.
    ...(options.cwd !== undefined && { cwd: options.cwd }),
  };
}

export function preflightSource(bundle: RunBundle): string {
  return readFileSync(path.join(bundle.harnessDir, 'preflight.py'), 'utf8');
}

export class SshTarget implements AttachableTarget {
  readonly id: string;
  readonly shell: SshTransport;
  private readonly driver: RemoteDriver;

  constructor(
    readonly host: string,
    private readonly options: RemoteTargetOptions,
  ) {
    this.id = `ssh:${host}`;
    this.shell = new SshTransport({ host, ...(options.sshConfig !== undefined && { configFile: options.sshConfig }) });
    const shell = this.shell;
    this.driver = {
      shell,
      async launch(info, argv) {
        await launch(shell, { dir: info.remoteDir, name: SUPERVISOR, argv });
      },
      aliveTest: () => groupAliveTest(SUPERVISOR),
      async kill(info) {
        await killRunProcesses(shell, info);
      },
    };
  }

  testConnection(python: string, bundle: RunBundle): Promise<ConnectionReport> {
    return testConnection(this.shell, {
      python: this.options.python ?? python,
      preflightSource: preflightSource(bundle),
      env: this.options.env,
      ...(this.options.cwd !== undefined && { cwd: this.options.cwd }),
    });
  }

  async describe(python: string, bundle: RunBundle): Promise<TargetEnvironment> {
    return (await this.testConnection(python, bundle)).environment;
  }

  start(options: StartOptions): Promise<TargetSession> {
    return startRemoteRun(this.driver, {
      ...options,
      plan: planForHost(options.plan, this.options),
      target: this.id,
      remoteRoot: this.options.remoteRoot,
    });
  }

  attach(localRunDir: string, onEvent: (event: SupervisorEvent) => void): TargetSession {
    const info = readRemoteInfo(localRunDir);
    if (!info) throw new RunError('HR_UNKNOWN_RUN', `${localRunDir} holds no remote run`);
    return follow(this.driver, info, localRunDir, onEvent);
  }
}
