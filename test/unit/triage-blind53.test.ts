// The message classes blind batch 53 showed the engine did not read: transformers refusing a device map that does not fit
// (modules dispatched off the GPU, weights offloaded to disk without a folder), the RAPIDS Accelerator for Spark's retry
// exceptions by their class name, ggml's Metal buffer over the device's largest, PyTorch's CPU allocator's posix_memalign
// check, NumPy's message with "form" and GB, macOS's "Killed: 9" job notice, zsh's notice inside a progress bar's frame, and
// Ray 2.0's raylet killing a worker. Each test is a variant written for the class (other numbers, names and paths), not a
// corpus log. The "review" section holds the regressions a review of the session's engine changes found, each fixed.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';
import { triageText } from '../../server/src/triage/index';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('a device map that does not fit', () => {
  it('reads modules dispatched off the GPU as the GPU being too small, and weights offloaded to disk as the host too', () => {
    expect(root('ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the quantized model.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(root('ValueError: The current `device_map` had weights offloaded to the disk. Please provide an `offload_folder` for them.')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
  });
});

describe('other allocators', () => {
  it("reads the RAPIDS Accelerator's retry exceptions by their class name", () => {
    expect(root('24/01/01 10:00:00 WARN TaskSetManager: Lost task 3.0 in stage 7.0 (TID 88) (10.0.0.5 executor 1): com.nvidia.spark.rapids.jni.RetryOOM: task should retry operation')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root('Caused by: com.nvidia.spark.rapids.jni.CpuSplitAndRetryOOM: Attempted to handle a split, but was not initial')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(root('24/01/01 10:00:00 INFO RmmRapidsRetryIterator: com.nvidia.spark.rapids.jni.RetryOOM: task should retry operation')?.kind).not.toBe('catchable-oom');
  });

  it("reads ggml's Metal buffer over the device's largest with both sizes", () => {
    expect(root("ggml_metal_add_buffer: buffer 'data' size 20000000000 is larger than buffer maximum of 17179869184")).toMatchObject({ kind: 'catchable-oom', platform: 'mps', requestedBytes: 20000000000, allowedBytes: 17179869184 });
  });

  it("reads the CPU allocator's posix_memalign check only with ENOMEM", () => {
    expect(root('RuntimeError: [enforce fail at CPUAllocator.cpp:64] posix_memalign(&data, gAlignment, nbytes) == 0. 12 vs 0')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(root('RuntimeError: [enforce fail at CPUAllocator.cpp:64] posix_memalign(&data, gAlignment, nbytes) == 0. 22 vs 0')?.kind).not.toBe('catchable-oom');
  });

  it("reads NumPy's message with GB and a translated 'form'", () => {
    expect(root('numpy.core._exceptions._ArrayMemoryError: Unable to allocate 3.5 GB for array with form (1000, 470000) and data type float64')).toMatchObject({ kind: 'catchable-oom', requestedBytes: Math.round(3.5 * 1024 ** 3) });
  });
});

describe('host kills', () => {
  it("reads macOS's 'Killed: 9' job notice and zsh's notice inside a bar's last frame", () => {
    expect(root('/Users/a/run.command: line 12: 4242 Killed: 9               python server.py --port 8000')?.kind).toBe('host-oom');
    expect(root('Loading components:  40%|████      | 2/5 [00:05<00:09,  3.10s/it[1]    77123 killed     python gen.py')?.kind).toBe('host-oom');
  });

  it("reads Ray 2.0's raylet killing a worker to free memory", () => {
    expect(root('[2022-08-17 02:34:49,260 E 9 9] (raylet) node_manager.cc:2926: [0] Killing worker with the latest task assigned time to free up memory. Task to be killed:ff01')?.kind).toBe('host-oom');
  });
});

describe('review', () => {
  it('keeps a cuBLAS status when the out-of-memory line near it is a hint, a retry or a warning', () => {
    for (const near of ['CUDA out of memory at batch size 64, halving', 'Note: if you see "CUDA out of memory", lower --batch-size.', '[rank1]: WARNING: CUDA out of memory on rank 1, retrying']) {
      const v = root(`${near}\nRuntimeError: CUDA error: CUBLAS_STATUS_INTERNAL_ERROR when calling \`cublasGemmEx(handle)\``);
      expect(v).toMatchObject({ kind: 'not-oom' });
      expect(v?.fixes.map((f) => f.id)).toContain('library-versions');
    }
  });

  it('does not take a later unrelated fatal check for the abort of an OOM above it', () => {
    const log = [
      'E tensorflow/stream_executor/cuda/cuda_driver.cc:806] failed to allocate 3.92G (4211261440 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY',
      'I tensorflow/core/common_runtime/gpu/gpu_device.cc:1115] Created TensorFlow device',
      'F tensorflow/core/framework/tensor_shape.cc:44] Check failed: NDIMS == dims() (2 vs. 3)',
      '*** Check failure stack trace: ***',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("reads Paddle's raised OOM as catchable when the process aborts later at teardown", () => {
    const log = ['Out of memory error on GPU 0. Cannot allocate 1.000000GB memory on GPU 0, available memory is only 100.000000MB.', '', 'terminate called without an active exception', 'Aborted (core dumped)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("lets a cut traceback speak over TensorFlow's 'not a failure' warning", () => {
    const log = [
      'W tensorflow/core/common_runtime/bfc_allocator.cc:248] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.10GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.',
      'Epoch 1/10',
      'Traceback (most recent call last):',
      '  File "/srv/exp/train.py", line 88, in <module>',
      '    model.fit(x, y)',
      '  File "/usr/lib/python3/site-packages/keras/engine/training.py", line 1184, in fit',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', userFrames: [{ file: '/srv/exp/train.py', line: 88 }] });
  });

  it('keeps a balanced code span on a line that ends with a backtick', () => {
    const line = 'RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasCreate(handle)`';
    expect(root(line)?.evidence[0]?.text).toBe(line);
  });

  it('reads hsa_init() only in the traceback of an exception the line raises', () => {
    const log = ['hsa_init() done', 'Loading model', ':0:rocdevice.cpp :2875: 1 us: Callback: Queue 0x7f aborting with error : HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime failed to allocate the necessary resources. code: 0x1008', 'Aborted (core dumped)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'rocm' });
  });

  it('gives the no-failure verdict no GPU a run said it did not use or a pip log only installed', () => {
    const platform = (text: string) => triageText(text, 'log').verdicts[0]?.platform;
    expect(platform('GPU available: True (cuda), used: False\nTPU available: False, using: 0 TPU cores\nEpoch 0: 100%| 10/10')).toBe('cpu');
    expect(platform('Collecting nvidia-cuda-runtime-cu12==12.1.105\nSuccessfully installed nvidia-cuda-runtime-cu12-12.1.105')).toBe('cpu');
    expect(platform('W tensorflow/core/common_runtime/gpu/gpu_device.cc:1850] Cannot dlopen some GPU libraries. Skipping registering GPU devices...')).toBe('cpu');
  });
});
