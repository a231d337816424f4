// The message classes blind batch 64 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("TensorFlow's allocator", () => {
  it("reads TensorFlow 1.x's chunk map (\"Chunk at … of size\"), with addresses in either case, as the dump of a failed allocation", () => {
    const dump = (at: string) => [`2018-01-01 10:00:00.000001: I tensorflow/core/common_runtime/bfc_allocator.cc:665] Chunk at ${at} of size 512`, `2018-01-01 10:00:00.000002: I tensorflow/core/common_runtime/bfc_allocator.cc:665] Chunk at ${at}0 of size 1024`];
    expect(root(dump('0x7f0a1b000000'))?.kind).toBe('catchable-oom');
    expect(root(dump('00000007AE122000'))?.kind).toBe('catchable-oom');
  });

  it('reads its OOM message with the first letter lost at the start of a line', () => {
    expect(root(['OM when allocating tensor with shape[64,512,7,7] and type float on /job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc'])).toMatchObject({ kind: 'catchable-oom', device: 1 });
  });
});

describe('review', () => {
  it('takes a kill for the cause of a cut traceback only a few lines above it, not one from an earlier episode', () => {
    const episodes = ['subprocess.CalledProcessError: Command \'[python, prep.py]\' died with <Signals.SIGKILL: 9>.', 'reran prep with less data, fine', ...Array.from({ length: 30 }, (_, i) => `epoch ${i} loss 0.4`), 'Traceback (most recent call last):', '  File "/w/train.py", line 50, in <module>', '    for batch in loader:', '  File "/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 630, in __next__', '    data = self._next_data()'];
    expect(root(episodes)?.kind).not.toBe('host-oom');
    const quoted = ['the notebook kept dying with "Your notebook tried to allocate more memory than is available" until I switched to the P100. Here is the new error:', 'Traceback (most recent call last):', '  File "/kaggle/working/run.py", line 3, in <module>', '    main()', '  File "/kaggle/working/run.py", line 2, in main', '    fit()'];
    expect(root(quoted)?.kind).not.toBe('host-oom');
  });

  it('keeps an OOM stated before a hedge or a reason', () => {
    expect(root(['Job 4512 FAILED. Reason for failure: out of memory (allocation of 8.00 GiB on device 0)'])).toMatchObject({ kind: 'catchable-oom', requestedBytes: 8589934592 });
    expect(root(['ERROR inference failed: out of memory. Possible causes: not enough GPU memory for batch 32'])?.kind).toBe('catchable-oom');
  });

  it("does not read a modal 'fail to allocate' as a failure, nor 'allocated memory N' as the request", () => {
    expect(root(['PxgCudaDeviceMemoryAllocator: buffers may fail to allocate device memory when gpu_heap_capacity is too small', 'step 100 reward 1.2', 'Training complete.'])?.kind).not.toBe('catchable-oom');
    expect(root(['RuntimeError: out of memory: allocated memory 7.50 GiB, requested 2.00 GiB'])).toMatchObject({ requestedBytes: 2147483648 });
  });

  it('does not read VRAM words in status lines or advice as an OOM', () => {
    for (const line of ['llm_load_tensors: not enough VRAM for all 33 layers (need 7.2 GiB): offloading 21 layers to GPU', 'Not enough VRAM detected (4 GB), enabling --lowvram automatically', 'Out of VRAM at tile size 512, using tile size 256', 'A: Out of VRAM errors are fixed by --medvram or --lowvram']) {
      expect(root([line, 'Running on local URL: http://127.0.0.1:7860'])?.kind).not.toBe('catchable-oom');
    }
  });

  it('does not read a caught or documented std::bad_alloc as an OOM, and keeps a GPU library\'s on its device', () => {
    expect(root(['allocator.cc:88: caught exception std::bad_alloc', '[  PASSED  ] 12 tests.'])?.kind).not.toBe('catchable-oom');
    expect(root(["params = {'tree_method': 'gpu_hist', 'device': 'cuda:0'}", 'xgboost.core.XGBoostError: std::bad_alloc'])).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });
});
