/**
 * The slurm target (`slurm:PARTITION`): the supervisor runs as the single task of a one-node job
 * and starts the ranks itself inside the allocation (as torchrun would), so the probes and the
 * watchdog are the same as everywhere else. Slurm commands run on the login node: this machine, or
 * the `host` of the target's options reached over SSH. The run directory must be on a file system
 * the login node and the compute nodes share (the home directory, as on most clusters).
 *
 *   srun mode: `srun ... -- python supervisor.py plan.json` runs detached on the login node
 *     (setsid/nohup), its output in the run directory; a dropped link leaves it running.
 *   sbatch mode: a batch script in the run directory, queued with `sbatch`; the job writes the
 *     supervisor's output files itself, and the run is followed while squeue lists the job.
 * Jobs are named `headroom-<runId>`; cancel scancels them and waits until squeue lists none.
 */
import type { TargetEnvironment } from '../../protocol';
import type { RemoteTargetOptions } from '../remote/config';
import { groupAliveTest, kill, launch } from '../remote/detached';
import { testConnection, type ConnectionReport } from '../remote/environment';
import { follow, readRemoteInfo, startRemoteRun, SUPERVISOR, type RemoteDriver, type RemoteRunInfo } from '../remote/session';
import { LocalShell, run, type Shell } from '../remote/shell';
import { batchScript, cancelJobs, checkSlurmSettings, jobListedTest, jobState, sbatchArgv, srunArgv, submit, type JobState, type SlurmSettings } from '../remote/slurm';
import { SshTransport } from '../remote/ssh';
import { quote } from '../remote/quote';
import { RunError } from '../errors';
import { planForHost, preflightSource, type AttachableTarget } from './ssh';
import type { RunBundle, StartOptions, SupervisorEvent, TargetSession } from './target';

export class SlurmTarget implements AttachableTarget {
  readonly id: string;
  readonly shell: Shell;
  readonly settings: SlurmSettings;

  constructor(
    partition: string,
    private readonly options: RemoteTargetOptions,
  ) {
    this.id = `slurm:${partition}`;
    this.settings = checkSlurmSettings({
      partition,
      mode: options.mode,
      ...(options.gres !== undefined && { gres: options.gres }),
      ...(options.time !== undefined && { time: options.time }),
      ...(options.account !== undefined && { account: options.account }),
    });
    this.shell =
      options.host !== undefined
        ? new SshTransport({ host: options.host, ...(options.sshConfig !== undefined && { configFile: options.sshConfig }) })
        : new LocalShell();
  }

  private driver(ranks: number): RemoteDriver {
    const { shell, settings } = this;
    const shapeFor = (info: RemoteRunInfo) => ({ jobName: info.jobName ?? 'headroom', cpusPerTask: Math.max(1, ranks) });
    if (settings.mode === 'sbatch') {
      return {
        shell,
        async launch(info, argv) {
          await run(shell, `cat > ${quote(`${info.remoteDir}/job.sh`)}`, { stdin: batchScript(argv, info.remoteDir) });
          const out = `${info.remoteDir}/${SUPERVISOR}.out`;
          const err = `${info.remoteDir}/${SUPERVISOR}.err`;
          await submit(shell, sbatchArgv(settings, shapeFor(info), `${info.remoteDir}/job.sh`, out, err), info.remoteDir);
        },
        aliveTest: (info) => jobListedTest(info.jobName!),
        async kill(info) {
          await cancelJobs(shell, info.jobName!);
        },
      };
    }
    return {
      shell,
      async launch(info, argv) {
        await launch(shell, { dir: info.remoteDir, name: SUPERVISOR, argv: srunArgv(settings, shapeFor(info), argv) });
      },
      aliveTest: () => groupAliveTest(SUPERVISOR),
      async kill(info) {
        // scancel first: slurmd signals every process of the step on the compute node, the ranks
        // included. Then the srun process on the login node, which is ours.
        await cancelJobs(shell, info.jobName!);
        await kill(shell, info.remoteDir, SUPERVISOR);
      },
    };
  }

  testConnection(python: string, bundle: RunBundle): Promise<ConnectionReport> {
    return testConnection(this.shell, {
      python: this.options.python ?? python,
      preflightSource: preflightSource(bundle),
      env: this.options.env,
      launcher: srunArgv(this.settings, { jobName: 'headroom-test-connection', cpusPerTask: 1 }, []),
      target: this.id,
      ...(this.options.cwd !== undefined && { cwd: this.options.cwd }),
    });
  }

  async describe(python: string, bundle: RunBundle): Promise<TargetEnvironment> {
    return (await this.testConnection(python, bundle)).environment;
  }

  start(options: StartOptions): Promise<TargetSession> {
    return startRemoteRun(this.driver(options.plan.ranks), {
      ...options,
      plan: planForHost(options.plan, this.options),
      target: this.id,
      remoteRoot: this.options.remoteRoot,
      jobName: `headroom-${options.plan.runId}`,
    });
  }

  attach(localRunDir: string, onEvent: (event: SupervisorEvent) => void): TargetSession {
    const info = readRemoteInfo(localRunDir);
    if (!info?.jobName) throw new RunError('HR_UNKNOWN_RUN', `${localRunDir} holds no Slurm run`);
    // The driver's CPU count only matters for launching, which attach never does.
    return follow(this.driver(1), info, localRunDir, onEvent);
  }

  /** Pending (with queue position), running, or ended: for the Runs view and `headroom remote job`. */
  job(localRunDir: string): Promise<JobState> {
    const info = readRemoteInfo(localRunDir);
    if (!info?.jobName) throw new RunError('HR_UNKNOWN_RUN', `${localRunDir} holds no Slurm run`);
    return jobState(this.shell, info.jobName);
  }
}
