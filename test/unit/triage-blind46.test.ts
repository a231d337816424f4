// The message classes blind batch 46 showed the engine did not read: OpenVINO's GPU plugin (its CL_OUT_OF_RESOURCES by
// number or in words, its forced exit, Intel's GPU as its platform), OpenCL's "Out of host memory" glued to the next word,
// Apple's Neural Engine under Core ML as Apple's platform, Ray Serve's
// replicas killed for memory, the RAPIDS Accelerator for Spark's retry OOMs, XLA's constant allocation, pinned memory
// refused for a driver mismatch, TensorFlow's type-only ResourceExhaustedError on the GPU, and Jupyter's server restarting a
// dead kernel. Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe("OpenVINO's GPU plugin", () => {
  it('reads CL_OUT_OF_RESOURCES by its number or in its own words as an OOM on an Intel GPU', () => {
    expect(root('RuntimeError: [GPU] clEnqueueNDRangeKernel, error code: -5')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu' });
    expect(root('Exception from src/plugins/intel_gpu/src/runtime/ocl/ocl_engine.cpp:185:\n[GPU] out of GPU resources')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu' });
    expect(root('[GPU] clFinish, error code: -5 CL_OUT_OF_RESOURCES')?.platform).toBe('xpu');
  });

  it('reads its forced exit after the status as an abort', () => {
    const log = ['onednn_verbose,v1,primitive,error,ocl,errcode -5,CL_OUT_OF_RESOURCES,src/gpu/intel/ocl/ocl_gpu_kernel.cpp:250', '[GPU] force exit.'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'xpu', catchable: false });
  });

  it('leaves its other OpenCL statuses not-oom, on the Intel GPU', () => {
    expect(root('Exception from src/plugins/intel_gpu/src/runtime/ocl/ocl_stream.cpp:310:\n[GPU] clEnqueueNDRangeKernel, error code: -54')).toMatchObject({ kind: 'not-oom', platform: 'xpu' });
  });
});

describe('other runtimes', () => {
  it('reads "Out of host memory" glued to the next word', () => {
    expect(root('Failed to apply delegate: Failed to build program executable - Out of host memoryError: Program not built!')?.kind).toBe('catchable-oom');
  });

  it("reads Core ML's Neural Engine failures on Apple's platform", () => {
    expect(root('E5RT: ANECCompile() FAILED (11)\nRuntimeError: Error compiling model')?.platform).toBe('mps');
  });

  it("reads XLA's constant allocation failure as an OOM with its size", () => {
    expect(root('jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Failed to allocate 12582912 bytes for new constant')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 12582912 });
  });

  it("reads the RAPIDS Accelerator for Spark's retry OOM as a GPU OOM", () => {
    expect(root('WARN TaskSetManager: Lost task 3.0 in stage 7.0: com.nvidia.spark.rapids.jni.SplitAndRetryOOM: GPU OutOfMemory: could not split inputs and retry')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it('reads pinned memory refused for a driver mismatch as not an OOM', () => {
    expect(root('E0101 10:00:00.000 1 pinned_memory_manager.cc:192] failed to allocate pinned system memory: CUDA driver version is insufficient for CUDA runtime version')?.kind).toBe('not-oom');
  });

  it("reads TensorFlow's type-only ResourceExhaustedError as the GPU's", () => {
    expect(root('ResourceExhaustedError                    Traceback (most recent call last)\n<ipython-input-4-aa> in <module>\n----> 1 model.fit(x, y)')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });
});

describe('hosts', () => {
  it("reads Ray Serve's replicas killed for memory as a host OOM", () => {
    expect(root("Health check for Replica(id='ab12', deployment='Gen') failed:\n9 worker(s) were killed due to the node running low on memory. ... 15.1GB used / 16.00GB limit")?.kind).toBe('host-oom');
  });
});
