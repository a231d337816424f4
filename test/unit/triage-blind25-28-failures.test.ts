// The failure classes (not a device running out of memory: schedulers, notebook kernels, host kills, ranks) that blind
// batches 25-28 showed the engine did not know. Each test is a variant written for the class (other numbers, names and
// paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const all = (text: string) => triageText(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("slurmstepd's notice of a job Slurm cancelled", () => {
  it('reads a job or step cancelled at its time limit as a not-oom, not catchable', () => {
    const log = [
      'epoch 14 | step 28100 | loss 0.8812',
      'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.',
      'slurmstepd: error: *** STEP 7731204.0 ON node-a17 CANCELLED AT 2023-11-05T03:12:44 DUE TO TIME LIMIT ***',
      'srun: error: node-a17: tasks 0-3: Terminated',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root(log)?.summary).toMatch(/time limit/);
  });

  it("reads the older form with the node last, and the other reasons Slurm gives", () => {
    expect(root('slurmstepd: *** JOB 55120 CANCELLED AT 2016-02-11T08:00:01 DUE TO TIME LIMIT on c114 ***')).toMatchObject({ kind: 'not-oom', catchable: false });
    const preempted = root('slurmstepd: error: *** JOB 981 ON n03 CANCELLED AT 2022-06-30T22:10:05 DUE TO PREEMPTION ***');
    expect(preempted).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(preempted?.summary).toMatch(/preemption/);
    expect(root('slurmstepd: error: *** JOB 981 ON n03 CANCELLED AT 2022-06-30T22:10:05 ***')?.kind).toBe('not-oom');
  });
});

describe("srun's report of a task killed by a signal", () => {
  it('reads "task N: Killed" as a host kill', () => {
    const log = ['sorting 2^31 keys with 32 ranks', 'srun: error: cn-041: tasks 4,6-7: Killed', 'srun: Force Terminated StepId=88412.0'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });

  it('does not read the kill that follows a time-limit cancel as one for memory', () => {
    const log = [
      'slurmstepd: error: *** STEP 412.0 ON cn-002 CANCELLED AT 2024-01-09T10:00:00 DUE TO TIME LIMIT ***',
      'srun: error: cn-002: task 0: Killed',
    ].join('\n');
    expect(root(log)?.kind).toBe('not-oom');
  });
});

describe('a notebook kernel that died', () => {
  it("reads the front ends' and servers' notices as a not-oom with no cause", () => {
    for (const line of [
      'The kernel for notebooks/Train Resnet.ipynb appears to have died. It will restart automatically.',
      '[I 2021-03-02 11:04:51.002 ServerApp] AsyncIOLoopKernelRestarter: restarting kernel (2/5), keep random ports',
      '[W 11:04:51.300 NotebookApp] kernel 0c9d1e22-5b7a-4c1f-9e0d-63c2a8f1b4aa restarted',
      '09:41:02.118 [error] Disposing session as kernel process died ExitCode: 3, Reason: OMP: Error #15: Initializing libiomp5md.dll',
    ]) {
      expect(root(`import numpy as np\n${line}`), line).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    }
  });

  it('leaves a kill for memory in the same log to the host-kill signatures', () => {
    const log = ['Epoch 2/10', 'Killed', 'The kernel appears to have died. It will restart automatically.'].join('\n');
    expect(root(log)?.kind).toBe('host-oom');
  });
});

describe('container OOM events', () => {
  it("reads docker's JSON event stream with an oom action as a host OOM", () => {
    const log = [
      '{"status":"start","id":"9f2c41d07be3","from":"trainer:latest","Type":"container","Action":"start","time":1718000101}',
      '{"status":"oom","id":"9f2c41d07be3","from":"trainer:latest","Type":"container","Action":"oom","time":1718000160}',
      '{"status":"die","id":"9f2c41d07be3","from":"trainer:latest","Type":"container","Action":"die","time":1718000160}',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('{"Type":"container","Action":"oom","Actor":{"ID":"41ab"},"time":1700000000}')?.kind).toBe('host-oom');
  });

  it("reads Backend.AI's kernel runner detecting an OOM kill as a host OOM", () => {
    const log = [
      'kernel-runner: Out-of-memory detected!',
      'kernel-runner: detected potentially oom-killed process:',
      '212 (running for 41.02s, vm: 9,120m, rss: 7,904m): /usr/bin/python3 -m ipykernel_launcher -f /home/work/kernel.json',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });
});

describe('ranks named in other words', () => {
  it("takes the rank from ProcessGroupWrapper's collective mismatch, both wordings", () => {
    const older = 'RuntimeError: Detected mismatch between collectives on ranks. Rank 5 is running collective: CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[1024], TensorDtypes=Half), but Rank 0 is running collective: CollectiveFingerPrint(OpType=BARRIER).';
    expect(root(older)).toMatchObject({ kind: 'not-oom', rank: 5 });
    const newer = 'RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running inconsistent collective: CollectiveFingerPrint(SequenceNumber=12, OpType=ALLGATHER)';
    expect(root(newer)?.rank).toBe(3);
  });

  it("takes the global rank from torchrun's failure table with its rows run together", () => {
    const log = [
      'Root Cause (first observed failure):',
      '[0]:',
      'rank5 (local rank: 1)exitcode: -9 (pid: 8812)error file: <N/A>',
      'traceback : Signal 9 (SIGKILL) received by PID 8812',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', rank: 5 });
  });

  it("takes mp.spawn's process index over the child's traceback as its rank", () => {
    const head = [
      'torch.multiprocessing.spawn.ProcessRaisedException: ',
      '',
      '-- Process 3 terminated with the following error:',
      'Traceback (most recent call last):',
      '  File "/opt/conda/lib/python3.10/site-packages/torch/multiprocessing/spawn.py", line 74, in _wrap',
      '    fn(i, *args)',
      '  File "/work/ddp_train.py", line 58, in run',
      '    dist.all_reduce(grad)',
    ];
    // The child's exception line kept, and cut off.
    expect(root([...head, 'ValueError: gradient has NaN entries'].join('\n'))).toMatchObject({ kind: 'not-oom', rank: 3 });
    expect(root(head.join('\n'))).toMatchObject({ kind: 'not-oom', rank: 3 });
  });
});
