// The message classes blind batch 12 showed the engine did not know: launcher-only failures, NCCL's
// error trace (socket, bootstrap, topology XML), and CUDA-only words that give a not-oom verdict its
// platform. Each test is a variant written for the class (other numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageText } from '../../server/src/triage/index';

const all = (text: string) => triageText(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('launcher-only failures', () => {
  it("reads DeepSpeed's 'exits with return code = N' alone as not-oom", () => {
    const log = "[2024-07-01 10:00:00,001] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 4410\n[2024-07-01 10:00:02,500] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'finetune.py', '--local_rank=3'] exits with return code = 2";
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
    // A zero return code is no failure.
    expect(all("[INFO] [launch.py:347:main] Process 12 exits successfully.\n['python', 'x.py'] exits with return code = 0")).toEqual([]);
  });
});

describe("NCCL's error trace", () => {
  it("reads a tail of 'NCCL INFO file.cc:N -> R' lines as a failed NCCL call (not-oom, cuda)", () => {
    const log = [
      'node7:5521:5600 [2] misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to 10.1.2.3<40121> failed : Connection refused',
      'node7:5521:5600 [2] NCCL INFO misc/socket.cc:567 -> 2',
      'node7:5521:5600 [2] NCCL INFO bootstrap.cc:285 -> 2',
      'node7:5521:5600 [2] NCCL INFO init.cc:1402 -> 2',
    ].join('\n');
    const v = root(log)!;
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(v.summary).toMatch(/ncclSystemError/);
    expect(root('host:1:2 [0] NCCL INFO graph/xml.cc:710 -> 3\nhost:1:2 [0] NCCL INFO graph/topo.cc:601 -> 3')!.summary).toMatch(/ncclInternalError/);
    // ncclInProgress (7) is not an error.
    expect(all('host:1:2 [0] NCCL INFO init.cc:99 -> 7')).toEqual([]);
  });
});

describe('the platform of a not-oom verdict from CUDA-only words', () => {
  it('takes cuda from ProcessGroupNCCL, THCudaCheck and accelerate\'s multi_gpu_launcher', () => {
    expect(root('[W111 02:00:00.1 ProcessGroupNCCL.cpp:1200] [PG 0 Rank 1] heartbeat\nE1111 torch/distributed/elastic/multiprocessing/api.py:900] failed (exitcode: 1) local_rank: 1 (pid: 88) of binary: /usr/bin/python')).toMatchObject({ kind: 'not-oom', platform: 'cuda', rank: 1 });
    expect(root('THCudaCheck FAIL file=/pytorch/aten/src/THC/generic/THCTensorMath.cu line=19 error=8 : invalid device function\nTraceback (most recent call last):\n  File "run.py", line 3, in <module>\n    go()\nRuntimeError: boom')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('  File "/opt/venv/lib/python3.11/site-packages/accelerate/commands/launch.py", line 700, in multi_gpu_launcher\n    distrib_run.run(args)\nsubprocess.CalledProcessError: Command \'[\'python\', \'t.py\']\' returned non-zero exit status 1.')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });

  it("reads DataParallel's 'Caught X in replica N on device D.' as cuda device D", () => {
    const log = 'Traceback (most recent call last):\n  File "train.py", line 40, in <module>\n    out = model(x)\n  File "/usr/lib/python3/site-packages/torch/_utils.py", line 700, in reraise\n    raise exception\nValueError: Caught ValueError in replica 2 on device 3.';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 3 });
  });
});
