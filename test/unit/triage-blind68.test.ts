// The message classes blind batch 68 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("Windows' commit limit in its own words", () => {
  it('reads the bare English message as host memory refused', () => {
    const log = ['error: failed to spawn worker', 'The paging file is too small for this operation to complete.'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
  });

  it("reads a Chinese Windows' wording left without its exception type", () => {
    const log = ['页面文件太小，无法完成操作。 Error loading "E:\\app\\runtime\\lib\\site-packages\\torch\\lib\\cublas64_12.dll" or one of its dependencies.'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it('does not read advice about the paging file as a failure', () => {
    const log = ['Tip: if loading fails, make sure the paging file is large enough.', 'Model loaded in 12.3 s'];
    expect(root(log)).toBeUndefined();
  });
});

describe("PBS's job-wide memory kill", () => {
  it("reads 'mem job total N kb exceeded limit M kb' as a host kill with its sizes", () => {
    const log = ['worker.o77120:=>> PBS: job killed: mem job total 67108864 kb exceeded limit 62914560 kb'];
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', processInUseBytes: 67108864 * 1024, allowedBytes: 62914560 * 1024 });
  });
});

describe("MPICH's MPI_Abort under an application's CUDA check", () => {
  it('makes the out-of-memory check an abort', () => {
    const log = [
      'CUDA error !!!!! <out of memory> !!!!! ',
      'at error code # 1501',
      'Abort(1) on node 2 (rank 2 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) - process 2',
    ];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });
});

describe("an application's guess that memory ran out", () => {
  it("does not read ColabFold's 'Not Enough GPU memory?' over a cut error as an OOM", () => {
    const log = ['2024-02-01 10:00:00,000 Could not predict T1050_1. Not Enough GPU memory? INTERN'];
    expect(root(log)).toBeUndefined();
  });

  it('still reads the allocator error the guess is followed by', () => {
    const log = ['2024-02-01 10:00:00,000 Could not predict T1050_1. Not Enough GPU memory? RESOURCE_EXHAUSTED: Out of memory while trying to allocate 9663676416 bytes.'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });
});

describe("PaddlePaddle's bare MemoryError over its error summary", () => {
  it("reads the summary's device OOM, not a host MemoryError", () => {
    const log = [
      'MemoryError:',
      '',
      '--------------------------------------',
      'C++ Traceback (most recent call last):',
      '--------------------------------------',
      'Not support stack backtrace yet.',
      '',
      '----------------------',
      'Error Message Summary:',
      '----------------------',
      'ResourceExhaustedError:',
      '',
      'Out of memory error on GPU 1. Cannot allocate 256.000000MB memory on GPU 1, 10.750000GB memory has been allocated and available memory is only 12.000000MB.',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, requestedBytes: 256 * 1024 ** 2, allocatedBytes: 10.75 * 1024 ** 3 });
  });

  it('keeps a bare MemoryError with no such summary a host OOM', () => {
    const log = ['Traceback (most recent call last):', '  File "prep.py", line 9, in <module>', '    rows = load(path)', 'MemoryError:'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });
});

describe("Ray's task error naming its actor's rank", () => {
  it('reads the rank in the repr', () => {
    const log = ['ray.exceptions.RayTaskError(OutOfMemoryError): ray::PolicyWorker.train() (pid=4242, ip=10.0.0.7, actor_id=ab12, repr=PolicyWorker[rank=3])', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free.'];
    expect(root(log)?.rank).toBe(3);
  });
});
