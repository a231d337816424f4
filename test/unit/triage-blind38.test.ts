// The message classes blind batch 38 showed the engine did not read: PyTorch's flight-recorder dump signal after a
// collective timeout, ComfyUI's "Got an OOM", a short print of an OOM before its whole message, DeepSpeed's launcher
// as a GPU job, PyTorch's 'mps' device named in code, and ggml's abort on a CUDA error that is not an OOM. Each test is
// a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];
const GiB = 2 ** 30;

describe('collective timeouts', () => {
  it("reads the dump signal a timed-out collective sends every rank as a hang, on the line's rank", () => {
    const log = [
      '[rank3]:[E0102 03:04:05.123456789 ProcessGroupNCCL.cpp:1900] [PG ID 0 PG GUID 0(default_pg) Rank 3] Received a dump signal due to a collective timeout from this local rank and we will try our best to dump the debug info. Last enqueued NCCL work: 88, last completed NCCL work: 87.',
      '[rank0]:[E0102 03:04:05.223456789 ProcessGroupNCCL.cpp:1900] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received a dump signal due to a collective timeout from  rank 3 and we will try our best to dump the debug info. Last enqueued NCCL work: 88, last completed NCCL work: 88.',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', platform: 'cuda', rank: 3, catchable: false });
  });

  it('takes an OOM on another rank as the root of the timeout', () => {
    const log = [
      '[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 1 has a total capacity of 79.19 GiB of which 1.50 GiB is free.',
      '[rank0]:[E0102 03:14:05.1 ProcessGroupNCCL.cpp:1900] [PG ID 0 PG GUID 0(default_pg) Rank 0] Received a dump signal due to a collective timeout from  rank 1 and we will try our best to dump the debug info. Last enqueued NCCL work: 12, last completed NCCL work: 12.',
    ];
    expect(triageFailures(log.join('\n'), 'log').verdicts.map((v) => v.kind)).toEqual(['catchable-oom', 'hang']);
  });
});

describe('applications that caught an OOM', () => {
  it("reads ComfyUI's 'Got an OOM' as a caught OOM, on an unnamed GPU", () => {
    const log = ['| Oversize GPU segments |       0    |       0    |       0    |       0    |', '[ERROR] Got an OOM, unloading all loaded models.', 'Prompt executed in 3.02 seconds'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });

  it("leaves the verdict to the OOM's own message when the log has it", () => {
    const log = ['torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 15.98 GiB of which 0 bytes is free.', 'Got an OOM, unloading all loaded models.'];
    expect(root(log.join('\n'))).toMatchObject({ platform: 'rocm', requestedBytes: GiB });
  });
});

describe('a short print of an OOM before its whole message', () => {
  it('reads the whole message for both, its numbers and the kind they give', () => {
    const log = [
      'CUDA out of memory. Tried to allocate 512.00 MiB',
      'I get this after a few epochs: RuntimeError: CUDA out of memory. Tried to allocate 512.00 MiB (GPU 1; 23.69 GiB total capacity; 15.10 GiB already allocated; 120.00 MiB free; 22.90 GiB reserved in total by PyTorch)',
    ];
    const verdicts = triageFailures(log.join('\n'), 'log').verdicts;
    expect(verdicts).toHaveLength(1);
    expect(verdicts[0]).toMatchObject({ kind: 'fragmentation', device: 1, requestedBytes: 512 * 2 ** 20, reservedBytes: Math.round(22.9 * GiB) });
    expect(verdicts[0]!.evidence.map((e) => e.line)).toEqual([1, 2]);
  });

  it('keeps two OOMs apart when their requests differ', () => {
    const log = ['CUDA out of memory. Tried to allocate 64.00 MiB', 'RuntimeError: CUDA out of memory. Tried to allocate 128.00 MiB (GPU 0; 7.79 GiB total capacity; 6.90 GiB already allocated; 10.00 MiB free; 7.00 GiB reserved in total by PyTorch)'];
    expect(triageFailures(log.join('\n'), 'log').verdicts).toHaveLength(2);
  });
});

describe('platforms', () => {
  it("places a DeepSpeed launcher's report on the GPU", () => {
    const log = [
      "[2025-01-02 10:00:00,000] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 4242",
      "[2025-01-02 10:00:00,100] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=3'] exits with return code = 1",
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });

  it("reads PyTorch's 'mps' device named in code as MPS", () => {
    const log = ["model = Net().to('mps')", 'RuntimeError: Invalid buffer size: 9.00 GB'];
    expect(root(log.join('\n'))?.platform).toBe('mps');
  });
});

describe("ggml's abort on a CUDA error that is not an OOM", () => {
  it('is not catchable, on the device it names, and ROCm when the failing call is HIP\'s', () => {
    const log = ['Error: an error was encountered while running the model: CUDA error: unspecified launch failure', '  current device: 2, in function ggml_backend_cuda_synchronize at /src/ggml-cuda/ggml-cuda.cu:2400', '  cudaStreamSynchronize(cuda_ctx->stream())', '/src/ggml-cuda/ggml-cuda.cu:99: CUDA error'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 2, catchable: false });
    log[2] = '  hipStreamSynchronize(cuda_ctx->stream())';
    expect(root(log.join('\n'))?.platform).toBe('rocm');
  });
});
