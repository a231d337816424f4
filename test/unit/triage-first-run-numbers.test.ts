// Frames, devices and ranks that the first runs of blind59-66 missed and the tuned engine still missed at the start of the
// twelfth session. Each test is a variant written for its class (other names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('frames of an exception whose message goes on over several lines', () => {
  it("takes the traceback above OpenVINO's 'Exception from <file>:<line>:' lead-in", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/sd/pipeline_ov.py", line 212, in denoise',
      '    self.request.wait()',
      'RuntimeError: Exception from src/inference/src/cpp/infer_request.cpp:223:',
      'Exception from src/plugins/intel_gpu/src/runtime/ocl/ocl_stream.cpp:371:',
      '[GPU] clFlush, error code: -5 CL_OUT_OF_RESOURCES',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'xpu' });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '/home/u/sd/pipeline_ov.py', line: 212 });
  });

  it("goes past MXNet's native stack to the Python traceback that raised it", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "serve.py", line 58, in <module>',
      '    emb = model.embed(batch)',
      '  File "/srv/app/embedder.py", line 97, in embed',
      '    return out.asnumpy()',
      '  File "/opt/conda/lib/python3.8/site-packages/mxnet/base.py", line 246, in check_call',
      '    raise get_last_ffi_error()',
      'mxnet.base.MXNetError: Traceback (most recent call last):',
      '  File "src/storage/./pooled_storage_manager.h", line 157',
      'MXNetError: cudaMalloc retry failed: out of memory',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '/srv/app/embedder.py', line: 97 });
  });
});

describe("TensorFlow 1.x's device names", () => {
  it("reads the GPU in 'implicit initialization on GPU:N failed'", () => {
    const log = ['tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:1 failed. Status: out of memory'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', device: 1 });
  });

  it("does not read a GPU from a line that names two", () => {
    const log = ['tensorflow.python.framework.errors_impl.InternalError: CUDA runtime implicit initialization on GPU:1 failed, then on GPU:2. Status: out of memory'];
    expect(root(log)?.device).toBeUndefined();
  });
});

describe('the rank a logger put on the traceback header only', () => {
  const log = (header: string) => [
    `${header} 2026-03-02 10:11:12,345 [ERROR] Traceback (most recent call last):`,
    '  File "/app/trainer/launch.py", line 880, in run_job',
    '    start(cfg)',
    "NameError: name 'start' is not defined",
  ];

  it('gives the exception under it that rank', () => {
    expect(root(log('[RANK 3]'))).toMatchObject({ kind: 'not-oom', rank: 3 });
  });

  it('gives none when the header names no rank', () => {
    expect(root(log('[worker]'))?.rank).toBeUndefined();
  });
});
