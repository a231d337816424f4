// The message classes blind batch 57 showed the engine did not read: tt-metal's circular-buffer clash printed as its format
// string and its allocator's OOM thrown into terminate, AWS Neuron's runtime failing to allocate device memory or a DMA
// ring, and a compiler child killed by SIGKILL ("neuronx-cc failed with -9"). Each test is a variant written for the class
// (other numbers, names and paths), not a corpus log. The "review" section holds the regressions a review of blind54-56's
// classes found, each fixed.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe("Tenstorrent's and AWS Neuron's allocators", () => {
  it("reads the circular-buffer clash printed as its format string, and the allocator's OOM in terminate as an abort", () => {
    expect(root('RuntimeError: TT_THROW @ tt_metal/impl/program/program.cpp:483: tt::exception Statically allocated circular buffers in program {} clash with L1 buffers on core range {}.')).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu' });
    const log = ["terminate called after throwing an instance of 'std::runtime_error'", '  what():  TT_THROW @ /src/tt_metal/impl/allocator/bank_manager.cpp:141: tt::exception', 'info:', 'Out of Memory: Not enough space to allocate 1048576 B L1 buffer across 64 banks, where each bank needs to store 16384 B'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'xla-tpu', requestedBytes: 1048576 });
  });

  it("reads Neuron's device memory and DMA ring failures as OOMs on its accelerator", () => {
    expect(root('[TDRV:dmem_alloc] Failed to alloc DEVICE memory: 8388608')).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 8388608 });
    expect(root('2022-Jan-01 10:00:00.0000  100:100  ERROR  TDRV:dma_ring_allocate                       No more pages for ring type: 2')).toMatchObject({ kind: 'catchable-oom', platform: 'npu' });
  });

  it('reads a compiler child killed by SIGKILL as a host kill', () => {
    expect(root('RuntimeError: neuronx-cc failed with -9')?.kind).toBe('host-oom');
  });
});

describe('review', () => {
  it('does not take an OOM far above for the cause of a traceback cut at the end', () => {
    const log = ['indice_cuda.cu 124 cuda execution failed with error 2', 'Aborted (core dumped)', ...Array.from({ length: 300 }, (_, i) => `epoch 2 step ${i} loss 0.5`), 'Traceback (most recent call last):', '  File "/home/u/det/train.py", line 200, in <module>', '    main()', '  File "/home/u/det/train.py", line 180, in main', '    evaluate(model, val_loader)'];
    const v = root(log.join('\n'));
    expect(v?.kind).toBe('not-oom');
    expect(v?.userFrames[0]).toMatchObject({ file: '/home/u/det/train.py', line: 180 });
  });

  it("lets another rank's failure speak over SGLang's watchdog", () => {
    const tb = ['[2025-05-01 10:00:00 TP3] Scheduler hit an exception: Traceback (most recent call last):', '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 2300, in run_scheduler_process', '    scheduler.event_loop_overlap()'];
    const watchdog = '[2025-05-01 10:05:00 TP0] Watchdog timeout (self.watchdog_timeout=300)';
    expect(root([...tb, 'RuntimeError: Prefill out of memory. Try to lower your batch size.', watchdog].join('\n'))?.kind).toBe('catchable-oom');
    expect(root(['[2025-05-01 10:00:00 TP3] Fatal Python error: Segmentation fault', watchdog].join('\n'))?.kind).toBe('not-oom');
  });

  it('reads no OOM in advice or a denial about VRAM', () => {
    for (const message of ['RuntimeError: Error(s) in loading state_dict for UNet: size mismatch for conv_in.weight. If you are out of VRAM, try --medvram.', 'RuntimeError: Model failed to load: checkpoint is corrupt (this is not an out of VRAM error)']) {
      expect(root(message)?.kind).toBe('not-oom');
    }
  });

  it("takes vLLM's cuda:N for a GPU whose vendor the lines around name", () => {
    const log = ['INFO 01-01 10:00:00 platform rocm: AMD Instinct MI300X (gfx942)', 'ValueError: Free memory on device cuda:0 (10.5/191.69 GiB) on startup is less than desired GPU memory utilization (0.9, 172.52 GiB).'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', device: 0 });
  });

  it("reads '[W]' as a log level only where a level stands", () => {
    expect(root('Error: could not allocate memory for matrix [W] (4096 x 4096)')?.kind).toBe('catchable-oom');
  });

  it('reads no OOM in a program that could not start another', () => {
    expect(root('execve(/usr/local/cuda/bin/nvcc) failed with error 2 (No such file or directory)')?.kind).not.toBe('catchable-oom');
    expect(root('RuntimeError: unable to write to file </torch_77_123>: Operation not permitted (1)')?.kind).toBe('not-oom');
  });
});
