// The message classes blind batch 69 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("Triton's per-block limit under Inductor's autotuner", () => {
  it("reads 'OutOfMemoryError: out of resource … Hardware limit' as a kernel's configuration, not an OOM", () => {
    const log = ['ERROR:torch._inductor.select_algorithm:Exception No valid triton configs. OutOfMemoryError: out of resource: triton_mm Required: 262144 Hardware limit:232448 Reducing block sizes or `num_stages` may help.'];
    expect([undefined, 'not-oom']).toContain(root(log)?.kind);
  });
});

describe("Windows' commit limit in a German Windows' words", () => {
  it('reads the DLL load failure as host memory refused', () => {
    const log = ['ImportError: DLL load failed while importing _C: Die Auslagerungsdatei ist zu klein, um diesen Vorgang durchzuführen.'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });
});

describe("TFLite's interpreter allocation", () => {
  it("reads 'Can not allocate memory for the interpreter' as an OOM", () => {
    const log = ['Caused by: java.lang.NullPointerException: Can not allocate memory for the interpreter', '    at org.tensorflow.lite.NativeInterpreterWrapper.createInterpreter(Native Method)'];
    expect(root(log)?.kind).toBe('catchable-oom');
  });
});

describe("the device's memory XLA logs under a cuDNN handle's failure", () => {
  it('reads the free and total bytes onto the not-oom verdict', () => {
    const log = [
      'E0301 09:00:00.000000  7000 cuda_dnn.cc:535] Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR',
      'E0301 09:00:00.000100  7000 cuda_dnn.cc:539] Memory usage: 1048576000 bytes free, 8589934592 bytes total.',
    ];
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', freeBytes: 1048576000, deviceTotalBytes: 8589934592 });
  });
});

describe('free memory printed after a separator', () => {
  it("reads 'requested N; free M' in an application's OOM message", () => {
    const log = ['Error: out of memory. requested 2048MB; free 512 MB'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 2048 * 1024 ** 2, freeBytes: 512 * 1024 ** 2 });
  });
});

describe('notebook frames as VS Code and Databricks render them', () => {
  it("reads a cell's line number inside VS Code's Markdown link", () => {
    const log = [
      '---------------------------------------------------------------------------',
      'RuntimeError                              Traceback (most recent call last)',
      'Cell In[4], [line 12](vscode-notebook-cell:?execution_count=4&line=12)',
      '     11 for x, y in loader:',
      '---> 12     loss = model(x).sum()',
      '',
      'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity; 6.50 GiB already allocated; 10.00 MiB free; 6.60 GiB reserved in total by PyTorch)',
    ];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: 'Cell In[4]', line: 12 });
  });

  it("reads a script's module-level frame, which IPython 8 ends at the line number", () => {
    const log = [
      'ValueError                                Traceback (most recent call last)',
      'File /home/u/exp/run_fit.py:[7](https://vscode-remote+ssh/home/u/exp/run_fit.py:7)',
      '----> 7 fit(model)',
      '',
      'ValueError: shapes do not match',
    ];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '/home/u/exp/run_fit.py', line: 7 });
  });
});
