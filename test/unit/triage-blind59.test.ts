// The message classes blind batch 59 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('out-of-memory texts', () => {
  it("reads PyTorch's message quoted without its first sentence, never as fragmentation", () => {
    const v = root(['error:GPU 1 has a total capacity of 79.15 GiB of which 312.00 MiB is free. Process 4242 has 78.83 GiB memory in use. Of the allocated memory 70.02 GiB is allocated by PyTorch, and 8.11 GiB is reserved by PyTorch but unallocated.']);
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, freeBytes: 327155712, allocatedBytes: 75183402516 });
    expect(v?.requestedBytes).toBeUndefined();
  });

  it('leaves the sentences under a head to the head', () => {
    const v = root(['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.', 'GPU 0 has a total capacity of 23.64 GiB of which 1.50 GiB is free.']);
    expect(v).toMatchObject({ kind: 'catchable-oom', requestedBytes: 2147483648 });
  });

  it("reads the 1.x message a terminal wrapped inside 'already allocated'", () => {
    const width = 'RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 0; 10.76 GiB total capacity; 9.10 GiB already';
    const v = root([width, 'allocated; 80.56 MiB free; 9.42 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try s']);
    expect(v).toMatchObject({ allocatedBytes: 9771050598, reservedBytes: 10114647982 });
  });

  it("reads other libraries' allocation failures: ND4J, nnabla, PlaidML", () => {
    expect(root(['java.lang.RuntimeException: Failed to allocate 104857600 bytes from DEVICE [1] memory'])).toMatchObject({ kind: 'catchable-oom', requestedBytes: 104857600 });
    expect(root(['Failed to allocate. Freeing memory cache and retrying.', 'Failed to allocate again.', 'Error during forward propagation:', '  AffineCuda'])?.kind).toBe('catchable-oom');
    expect(root(['plaidml.exceptions.unknown unable to allocate device local memory CL OUT OF RESOURCES'])?.kind).toBe('catchable-oom');
  });

  it("reads Windows' commit limit retyped with 'to small'", () => {
    expect(root(['OSError: The paging file is to small for this operation to complete. Error loading "C:\\torch\\lib\\cudnn_cnn_infer64_8.dll"'])?.kind).toBe('catchable-oom');
  });
});

describe('kills and crashes', () => {
  it("reads mpirun's SIGKILL of a rank as a host kill of that rank, and its other signals as crashes of that rank", () => {
    expect(root(['mpirun noticed that process rank 5 with PID 31337 on node worker-2 exited on signal 9 (Killed).'])).toMatchObject({ kind: 'host-oom', rank: 5 });
    expect(root(['mpirun noticed that process rank 2 with PID 0 on node n7 exited on signal 11 (Segmentation fault).'])).toMatchObject({ kind: 'not-oom', rank: 2 });
  });

  it("reads macOS's low-swap kill, zsh's notice quoted alone and DataLoader's kill in lower case", () => {
    expect(root(['low swap: killing largest compressed process with pid 9123 (Python) and size 2210 MB'])?.kind).toBe('host-oom');
    expect(root(['zsh: killed'])?.kind).toBe('host-oom');
    expect(root(['RuntimeError:Dataloader worker (pid 3310) is killed by signal:killed'])?.kind).toBe('host-oom');
  });

  it("takes the rank from torch.multiprocessing.spawn's report for any failure under it", () => {
    expect(root(['torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGSEGV'])).toMatchObject({ kind: 'not-oom', rank: 3 });
    const log = ['-- Process 1 terminated with the following error:', 'Traceback (most recent call last):', '  File "/opt/venv/lib/python3.10/site-packages/torch_xla/core/xla_model.py", line 41, in get_xla_supported_devices', '    devices = torch_xla._XLAC._xla_get_devices()', 'RuntimeError: tensorflow/compiler/xla/xla_client/xrt_computation_client.cc:1198 : Check failed: session.Run(...)'];
    expect(root(log)).toMatchObject({ kind: 'not-oom', rank: 1 });
  });
});

describe('pastes', () => {
  it("reads a GitHub Actions log copied with its line anchors", () => {
    const anchor = (n: number) => `[${n}](https://github.com/org/repo/actions/runs/7/job/9#step:5:${n})`;
    const log = [anchor(40), '-- Process 2 terminated with the following error:', anchor(41), 'Traceback (most recent call last):', anchor(42), '  File "/w/repo/train.py", line 88, in worker', anchor(43), '    step(batch)', anchor(44), 'KeyError: 7'];
    expect(root(log)).toMatchObject({ kind: 'not-oom', rank: 2 });
  });

  it("reads the exception line of pytest's report", () => {
    const log = ['tests/test_loader.py:3: in <module>', '    import torch', 'E   OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "D:\\env\\torch\\lib\\cufft64_10.dll"'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });
});
