// The message classes blind batch 67 showed the engine did not read. Each test is a variant written for its class (other
// names, paths and numbers), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("vLLM's KV-cache check before v1, counted in tokens", () => {
  it('reads the max seq len over the KV cache capacity as an OOM the program received, with no byte numbers', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/srv/llm/serve.py", line 31, in <module>',
      '    llm = LLM(model=args.model, max_model_len=16384)',
      "ValueError: The model's max seq len (16384) is larger than the maximum number of tokens that can be stored in KV cache (9120). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
    ];
    const v = root(log);
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(v?.requestedBytes).toBeUndefined();
    expect(v?.userFrames[0]).toMatchObject({ file: '/srv/llm/serve.py', line: 31 });
  });

  it('does not read a prompt longer than the max seq len as an OOM', () => {
    const log = ['ValueError: Input prompt (20480 tokens) is too long and exceeds limit of 16384'];
    expect(root(log)?.kind).toBe('not-oom');
  });
});

describe("Mesa's amdgpu layer refusing a buffer", () => {
  // The layer retries once after freeing its caches: the failure is the second block (review-twelfth has the one-block case).
  const block = (prefix: string, size: number) => [`${prefix}amdgpu: Failed to allocate a buffer:`, `${prefix}amdgpu:    size      : ${size} bytes`, `${prefix}amdgpu:    alignment : 65536 bytes`];

  it('reads the failure with the size on the line under it', () => {
    const log = [...block('MESA: error: ', 4294967296), ...block('MESA: error: ', 4294967296)];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', requestedBytes: 4294967296 });
  });

  it("reads radv's older unprefixed form", () => {
    const log = [...block('radv/', 1073741824), ...block('radv/', 1073741824)];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 1073741824 });
  });
});

describe("libc++'s report of an uncaught exception before LLVM 15", () => {
  it('makes an allocation failure in the exception block under it an abort', () => {
    const log = [
      'terminating with uncaught exception of type edge_rt::EnforceException: edge runtime C++ Exception: ',
      '| enforce failed',
      '| [in file] : /build/edge-rt/src/core/buffer.cc',
      '| [on line] : 88',
      '| [detail]  : Insufficient memory to allocate the output tensor',
    ];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });

  it('leaves an allocation failure far below an unrelated report catchable', () => {
    const log = [
      "terminating with uncaught exception of type std::runtime_error: config missing",
      'restarting worker',
      'loading model',
      'warming up',
      'MemoryError: Insufficient memory to allocate the output tensor',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });
});

describe("NCCL's check that each rank has its own GPU", () => {
  it('reads the duplicate GPU as a not-oom failure of the rank that printed it', () => {
    const log = ['node7:88121:88190 [3] init.cc:903 NCCL WARN Duplicate GPU detected : rank 11 and rank 3 both on CUDA device 3b000', 'node7:88121:88190 [3] NCCL INFO init.cc:1501 -> 5'];
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', rank: 11 });
  });

  it('keeps the launcher prefix rank over the one in the message', () => {
    const log = ['[1,5]<stderr>:gpu-02:4410:4470 [1] init.cc:497 NCCL WARN Duplicate GPU detected : rank 5 and rank 1 both on CUDA device 1a000'];
    expect(root(log)).toMatchObject({ kind: 'not-oom', rank: 5 });
  });
});

describe('ranks and devices named in older or cut messages', () => {
  it("reads the rank of ProcessGroupNCCL's unique-id fetch in its older spelling", () => {
    const log = ["RuntimeError: [3] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout"];
    expect(root(log)).toMatchObject({ kind: 'not-oom', rank: 3 });
  });

  it("reads Paddle's device from its OOM message cut inside the request", () => {
    const log = ['ResourceExhaustedError:', '', 'Out of memory error on GPU 1. Cannot allocate 52.7'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1 });
    expect(root(log)?.requestedBytes).toBeUndefined();
  });

  it("reads the device NVCaffe's checks end with", () => {
    const log = ['F0412 10:01:02.123456  4242 cudnn_conv_layer.cu:118] Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0)  CUDNN_STATUS_EXECUTION_FAILED, device 2', '*** Check failure stack trace: ***'];
    expect(root(log)).toMatchObject({ kind: 'not-oom', device: 2 });
  });
});

describe("faulthandler's dump under a runtime's abort", () => {
  it('gives the abort the frames of the Python call it aborted in', () => {
    const log = [
      '### HCC STATUS_CHECK Error: HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008) at file:mcwamp_hsa.cpp line:3100',
      'Fatal Python error: Aborted',
      '',
      'Current thread 0x00007f00aa11b740 (most recent call first):',
      '  File "/usr/lib/python3/dist-packages/tensorflow/python/client/session.py", line 1400 in _call_tf_sessionrun',
      '  File "/work/bench/run_cnn.py", line 512 in step',
      '  File "/work/bench/run_cnn.py", line 900 in main',
    ];
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm' });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: '/work/bench/run_cnn.py', line: 512 });
  });
});
