// The message classes blind batch 54 showed the engine did not read: CatBoost's GPU memory pool (an abort when it escapes),
// Rockchip's NPU runtime failing to allocate NPU memory, a CUDA check macro whose "CUDA error:" names a file before "out of
// memory", spconv's "cuda execution failed with error 2" alone, JAX's coordination service losing a task and its TPU
// backend waiting for hosts, Horovod's stall message cut after its first words, and TensorRT's "[W]" tactic warnings. Each
// test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];
const MiB = 1024 ** 2;

describe('CatBoost and Rockchip', () => {
  it("reads CatBoost's pool message with MB, as an abort when it escaped, raised otherwise", () => {
    const message = '(NCudaLib::TOutOfMemoryError) /src/catboost/catboost/cuda/cuda_lib/memory_pool/stack_like_memory_pool.h:303: Error: Out of memory. Requested 4096 MB; Free 1000.5 MB';
    expect(root(`${message}\nuncaught exception:\n    address -> 0x1\n    what() -> "Error: Out of memory. Requested 4096 MB; Free 1000.5 MB"\n    type -> NCudaLib::TOutOfMemoryError`)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', requestedBytes: 4096 * MiB, freeBytes: Math.round(1000.5 * MiB) });
    expect(root(`_catboost.CatBoostError: ${message}`)).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("reads Rockchip's NPU allocation failure with its size, an abort when the program then crashed", () => {
    expect(root('E RKNN: [10:00:00.000] failed to malloc npu memory!, size: 1048576, flags: 0x2')).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 1048576 });
    expect(root('E RKNN: failed to malloc npu memory, size: 2048, flags: 0x0\nE RKNN: load model file error!\nSegmentation fault (core dumped)')).toMatchObject({ kind: 'runtime-abort', platform: 'npu' });
    expect(root('Exception: RKNN init failed. error code: RKNN_ERR_MALLOC_FAIL')).toMatchObject({ kind: 'catchable-oom', platform: 'npu' });
  });
});

describe('CUDA status by number or behind a file', () => {
  it('reads "CUDA error:" naming a file before "out of memory" as the OOM', () => {
    expect(root('CUDA error: src/common/device_helpers.cuh(512): out of memory')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it('reads a lone "cuda execution failed with error 2" as the device running out', () => {
    expect(root('epoch 3\ncuda execution failed with error 2')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });
});

describe('stalls', () => {
  it("reads JAX's coordination service losing a task as a hang of that task", () => {
    const line = 'E0101 10:00:00.000 coordination_service.cc:1170] /job:jax_worker/replica:0/task:5 has been set to ERROR in coordination service: UNAVAILABLE: Task /job:jax_worker/replica:0/task:5 heartbeat timeout. This indicates that the remote task has failed, got preempted, or crashed unexpectedly.';
    expect(root(line)).toMatchObject({ kind: 'hang', rank: 5 });
  });

  it("reads JAX's slow TPU start as a hang only where the log ends on it", () => {
    const warning = '/opt/venv/lib/python3.11/site-packages/jax/_src/xla_bridge.py:146: UserWarning: TPU backend initialization is taking more than 60.0 seconds. Did you run your code on all TPU hosts?';
    expect(root(`${warning}\n  warnings.warn(\n`)).toMatchObject({ kind: 'hang', platform: 'xla-tpu' });
    expect(root(`${warning}\n  warnings.warn(\nstep 1 loss 2.3\nstep 2 loss 2.1`)?.kind).not.toBe('hang');
  });

  it("reads Horovod's stall message cut after its first words", () => {
    expect(root('[2021-01-01 10:00:00.000: W horovod/common/stall_inspector.cc:105] One or more tensors were submitted to be reduced, gathered or broadcasted by\n subset of ranks and are wait')).toMatchObject({ kind: 'hang' });
  });
});

describe("TensorRT's tactic warnings", () => {
  it('reads a skipped tactic for lack of memory as no failure', () => {
    expect(root('[01/01/2024-10:00:00] [TRT] [W] Skipping tactic 3 due to insufficient memory on requested size of 1048576 detected for tactic 0x01.')).toBeUndefined();
  });
});
