// The message classes blind batch 70 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("ggml's abort on cuBLAS's allocation status", () => {
  it("reads 'CUDA error: the resource allocation failed' over ggml's device line as an OOM abort", () => {
    const log = [
      'CUDA error: the resource allocation failed',
      '  current device: 1, in function cublas_handle at /src/llama.cpp/ggml/src/ggml-cuda/common.cuh:700',
      '  cublasCreate_v2(&cublas_handles[device])',
      '/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:95: CUDA error',
    ];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', device: 1 });
  });

  it('leaves the words alone without ggml around them', () => {
    const log = ['RuntimeError: setup failed: the resource allocation failed for the thread pool'];
    expect(root(log)?.kind).not.toBe('runtime-abort');
  });
});

describe('processes that end on an out-of-memory check', () => {
  it("reads roslaunch's report of the node's exit under darknet's check as an abort", () => {
    const log = ['CUDA Error: out of memory', '[detector-1] process has died [pid 4242, exit code 255, cmd /opt/ros/lib/detector __name:=detector].'];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });

  it("reads MXNet's fatal asynchronous-engine error under a cudaMalloc failure as an abort", () => {
    const log = [
      '[10:00:00] src/storage/./pooled_storage_manager.h:151: cudaMalloc failed: out of memory',
      'An fatal error occurred in asynchronous engine operation. If you do not know what caused this error, you can try set environment variable MXNET_ENGINE_TYPE to NaiveEngine and run with debugger (i.e. gdb). This will force all operations to be synchronous and backtrace will give you the series of calls that lead to this error. Remember to set MXNET_ENGINE_TYPE back to empty after debugging.',
    ];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });
});

describe('frames of tracebacks pasted without their layout', () => {
  it('reads frames whose code lines lost their indentation between blank lines', () => {
    const log = [
      'Traceback (most recent call last):',
      '',
      'File "run.py", line 40, in <module>',
      '',
      'main(cfg)',
      '',
      'File "/srv/gan/model.py", line 212, in forward',
      '',
      'out = self.conv(x)',
      '',
      'RuntimeError: CUDA error: an illegal memory access was encountered',
    ];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '/srv/gan/model.py', line: 212 });
  });

  it('reads frames a paste flattened onto the exception line', () => {
    const log = ['epoch 0: 3%| | 3/100 Traceback (most recent call last): File "fit.py", line 9, in <module> run() File "C:\\proj\\loop.py", line 77, in run loss.backward() RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED'];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: 'C:\\proj\\loop.py', line: 77 });
  });

  it("treats a Cython frame named under its package's full name as the package's", () => {
    const log = [
      'RuntimeError                              Traceback (most recent call last)',
      '<ipython-input-3-aa11> in <module>',
      '----> 5 net = core.load_network(model, "MYRIAD")',
      'ie_api.pyx in openvino.inference_engine.ie_api.IECore.load_network()',
      'RuntimeError: Failed to allocate graph: NC_ERROR',
    ];
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '<ipython-input-3-aa11>', line: 5 });
  });
});
