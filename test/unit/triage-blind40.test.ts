// The message classes blind batch 40 showed the engine did not read: V8's fatal heap OOM in Node.js, the DreamBooth
// extension's and accelerate's batch-size search, a launcher's CalledProcessError beside the SIGKILL that caused it,
// bash's French "Killed", glog's FATAL line after a CUDA OOM, TensorRT 10's request in its error, and tt-metal's message
// wrapped over lines. Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe("Node.js's V8", () => {
  it('reads its fatal heap OOM as an abort, from the message or from its native stack alone', () => {
    expect(root('FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false });
    const stack = [' 1: 00007FF6A1B2C3D4 node::Start+1234', ' 2: 00007FF6A1B2C3E5 v8::base::FatalOOM+54', ' 3: 00007FF6A1B2C3F6 v8::Function::NewInstance+245'];
    expect(root(stack.join('\n'))?.kind).toBe('runtime-abort');
  });
});

describe('batch-size searches', () => {
  it("reads the DreamBooth extension's retry as a caught OOM", () => {
    expect(root('OOM Detected, reducing batch/grad size to 3/1.')).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("reads accelerate's search reaching zero as an OOM at every batch size, with the user's frame", () => {
    const log = ['Traceback (most recent call last):', '  File "/home/u/ft/train.py", line 77, in <module>', '    trainer.train()', '  File "/home/u/venv/lib/python3.11/site-packages/accelerate/utils/memory.py", line 150, in decorator', '    raise RuntimeError("No executable batch size found, reached zero.")', 'RuntimeError: No executable batch size found, reached zero.'];
    const v = root(log.join('\n'));
    expect(v).toMatchObject({ kind: 'catchable-oom', catchable: true });
    expect(v!.userFrames[0]).toMatchObject({ file: '/home/u/ft/train.py', line: 77 });
  });
});

describe('host kills', () => {
  it("takes the child's SIGKILL over the launcher's CalledProcessError that reports it", () => {
    const log = ['subprocess died with <Signals.SIGKILL: 9>', '', "CalledProcessError: Command '['/venv/bin/python', 'train_network.py', '--resolution=768,768',", "'--output_dir=/data/out', '--network_dim=32',"];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });

  it("reads bash's French 'Processus arrêté' as a kill", () => {
    expect(root('Chargement des données...\nProcessus arrêté')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });
});

describe('allocation failures', () => {
  it("reads a CUDA OOM followed by glog's FATAL check as an abort", () => {
    const log = [
      '2020-01-02 03:04:05.000001: E tensorflow/stream_executor/cuda/cuda_driver.cc:890] failed to alloc 4294967296 bytes on host: CUDA_ERROR_OUT_OF_MEMORY: out of memory',
      '2020-01-02 03:04:05.000002: F tensorflow/core/common_runtime/gpu/gpu_device.cc:1234] Check failed: host_allocator != nullptr',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });

  it("reads TensorRT 10's request from its error", () => {
    expect(root('[12/01/2025-10:00:00] [TRT] [E] [virtualMemoryBuffer.cpp::resizePhysical::151] Error Code 2: OutOfMemory (Requested size was 8589934592 bytes.)')).toMatchObject({
      kind: 'catchable-oom', requestedBytes: 8589934592,
    });
  });

  it("reads tt-metal's message and its banks' state wrapped over lines", () => {
    const log = ['TT_FATAL: Out of Memory: Not enough space to allocate 67108864 B DRAM buffer', 'across 12 banks, where each bank needs to store 5592576 B, but bank size is', '1071821792 B (allocated: 1070000000 B, free: 1821792 B, largest free block:', '1000000 B)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: 67108864, allocatedBytes: 1070000000, freeBytes: 1821792 });
  });
});

// A second review's finds on these classes, each held here.
describe('what the classes must not take over', () => {
  it("a SIGKILL long before a launcher's report, or a report that gives a plain exit status, is not its cause", () => {
    const far = ["WARNING:prep:Command '['ffmpeg', '-i', 'clip.mp4']' died with <Signals.SIGKILL: 9>. Skipping clip_0042.", ...Array.from({ length: 40 }, (_, i) => `step ${i} loss 0.5`), "subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' returned non-zero exit status 1."];
    expect(triageFailures(far.join('\n'), 'log').verdicts[0]?.kind).toBe('not-oom');
  });

  it("a Node.js side process's heap OOM gives way to the run's own failure, and a quote of it in prose is not one", () => {
    const log = ['[dashboard] FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory', 'epoch 3 step 120', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.64 GiB of which 1.10 GiB is free.'];
    expect(triageFailures(log.join('\n'), 'log').verdicts.map((v) => v.kind)).toEqual(['catchable-oom']);
    expect(root('Tip: if the build fails with "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory", set NODE_OPTIONS')?.kind).not.toBe('runtime-abort');
  });

  it("glog's FATAL line ends the process on the failure right above it only", () => {
    const log = [
      '2020-01-02 03:04:05.000001: E tensorflow/stream_executor/cuda/cuda_driver.cc:1262] failed to allocate 7.50G (8053063680 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory',
      '2020-01-02 03:04:05.100000: I tensorflow/core/common_runtime/bfc_allocator.cc:1000] retrying',
      '2020-01-02 03:04:05.200000: I tensorflow/core/common_runtime/bfc_allocator.cc:1001] retrying',
      '2020-01-02 03:04:06.000000: F tensorflow/core/platform/default/env.cc:73] Check failed: ret == 0 (11 vs. 0)Thread creation via pthread_create() failed.',
    ];
    expect(root(log.join('\n'))?.kind).toBe('catchable-oom');
  });
});
