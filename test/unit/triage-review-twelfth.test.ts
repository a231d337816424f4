// Regressions a review helper found in the twelfth session's classes (blind67-72), on inputs of its own; each test is a
// variant of its input. What the new readings must not do: fire on another rank's or a recovered line, on advice, or take
// the root from a more specific reader.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('the ends of processes that are not aborts', () => {
  it("keeps a Python exception catchable under roslaunch's report of exit code 1", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/r/ws/src/mapper/mapper.py", line 22, in __init__',
      '    self.buf = mmap.mmap(-1, 64 << 30)',
      'OSError: [Errno 12] Cannot allocate memory',
      '[mapper-4] process has died [pid 5150, exit code 1, cmd /home/r/ws/src/mapper/mapper.py __name:=mapper].',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("does not take another rank's uncaught exception for this rank's", () => {
    const log = [
      "[rank1]: terminate called after throwing an instance of 'c10::DistBackendError'",
      '[rank0]:   File "/home/u/proj/train.py", line 180, in main',
      '[rank0]:     shm = SharedMemory(create=True, size=nbytes)',
      '[rank0]: OSError: [Errno 12] Cannot allocate memory',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', rank: 0 });
  });

  it('does not walk up over a traceback to an unrelated uncaught exception', () => {
    const log = [
      '    libc++abi: terminating with uncaught exception of type NSException',
      '    Traceback (most recent call last):',
      '      File "/Users/u/app/load.py", line 12, in <module>',
      '        arr = np.memmap(path, mode="r")',
      '    OSError: [Errno 12] Cannot allocate memory',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });
});

describe("Mesa's amdgpu layer", () => {
  it('reads no failure in one block the layer recovered from', () => {
    const log = ['MESA: error: amdgpu: Failed to allocate a buffer:', 'MESA: error: amdgpu:    size      : 33554432 bytes', 'MESA: error: amdgpu:    alignment : 4096 bytes', 'epoch 3 done', 'Training complete.'];
    expect(root(log)).toBeUndefined();
  });

  it("leaves the root to PyTorch's OOM after a block", () => {
    const log = [
      'MESA: error: amdgpu: Failed to allocate a buffer:',
      'MESA: error: amdgpu:    size      : 33554432 bytes',
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 11.76 GiB of which 1.02 GiB is free.',
    ];
    expect(root(log)).toMatchObject({ platform: 'cuda', device: 0 });
  });
});

describe('guesses, advice and warnings', () => {
  it('reads the error a guess is followed by when it is an allocation failure', () => {
    const log = ['Could not predict 7XYZ_1. Not Enough GPU memory? INTERNAL: Failed to allocate 98697216 bytes for new constant'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 98697216 });
  });

  it("does not read Windows' paging-file message in a warning the run went on from", () => {
    const log = ['Warning: The paging file is too small for this operation to complete. Falling back to num_workers=0', 'epoch 1 loss 0.41', 'Training complete.'];
    expect(root(log)).toBeUndefined();
  });
});

describe('frames', () => {
  it("does not give a host kill the frames of an exception the script recovered from", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/proj/train.py", line 50, in resume',
      '    model.load_state_dict(ckpt)',
      'RuntimeError: Error(s) in loading state_dict for ResNet:',
      '\tMissing key(s) in state_dict: "fc.weight", "fc.bias".',
      'Resume failed; training from scratch',
      'Killed',
    ];
    expect(root(log)).toMatchObject({ kind: 'host-oom' });
    expect(root(log)?.userFrames).toEqual([]);
  });

  it("does not give one srun task's abort another task's faulthandler frames", () => {
    const log = [
      "0: terminate called after throwing an instance of 'c10::OutOfMemoryError'",
      '0:   what():  CUDA out of memory. Tried to allocate 2.00 GiB',
      '1: Fatal Python error: Segmentation fault',
      '1: ',
      '1: Current thread 0x00007f00aa11b740 (most recent call first):',
      '1:   File "/work/loader.py", line 77 in fetch',
      '1:   File "/work/train.py", line 140 in main',
    ];
    expect(root(log)?.userFrames).toEqual([]);
  });

  it("reads IPython 8's bare 'File path:N' only for a Python file", () => {
    const log = ['File /data/configs/train.yaml:12', 'RuntimeError: CUDA error: out of memory'];
    expect(root(log)?.userFrames).toEqual([]);
  });

  it("keeps a Cython module of the user's project, named under one package level, as the user's", () => {
    const log = ['Traceback (most recent call last):', '  File "cython_bbox.pyx", line 41, in utils.cython_bbox.bbox_overlaps', 'MemoryError: Unable to allocate 37.3 GiB for an array with shape (100000, 50000) and data type float64'];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: 'cython_bbox.pyx', line: 41 });
  });

  it("takes a Databricks cell as the user's frame", () => {
    const log = [
      'OutOfMemoryError                          Traceback (most recent call last)',
      '<command-1357939202606131> in <module>',
      '      3 batch = next(it)',
      '----> 4 out = model(batch)',
      'OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.50 GiB already allocated; 5.00 MiB free; 14.70 GiB reserved in total by PyTorch)',
    ];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '<command-1357939202606131>', line: 4 });
  });
});
