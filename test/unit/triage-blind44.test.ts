// The message classes blind batch 44 showed the engine did not read: Faiss's GPU allocations, ggml's fixed memory pools,
// RMM's cut and uncaught errors and RAPIDS' MemoryError, Ray's OOM-prevention tail, "out of GPU memory" in other words,
// shells' segfault notices glued to output or in other languages, a skipped batch after a caught OOM, ComfyUI's one-line
// node error, c10's bare check, TensorFlow's BFC region line and wrapped node line, wrapped allocator messages, headerless
// frames under carets or under the message's own sentences, elided traceback frames, and programs installed in a bin
// folder. Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const verdicts = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => verdicts(text)[0];

describe('Faiss on the GPU', () => {
  it('reads a failed cudaMalloc raised to Python as a catchable OOM, with its size and device', () => {
    const line = "RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at /src/faiss/gpu/StandardGpuResources.cpp:452: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc 1073741824 bytes on device 3 (error 2 out of memory";
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, device: 3, requestedBytes: 1073741824 });
  });

  it("reads the resources' alloc-fail form with its device and size", () => {
    const line = "RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory(const faiss::gpu::AllocRequest&) at StandardGpuResources.cpp:443: Error: 'err == cudaSuccess' failed: StandardGpuResources: alloc fail type TemporaryMemoryBuffer dev 1 space Device stream 0x55d0 size 2097152 bytes (cudaMalloc error out of memory [2])";
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', device: 1, requestedBytes: 2097152 });
  });

  it('reads its assertions in the allocating functions as aborts, quoted or not', () => {
    expect(root("Faiss assertion 'cudaMalloc(p, size) == cudaSuccess' failed in void faiss::gpu::allocMemorySpace(faiss::gpu::MemorySpace, void**, size_t) at utils/MemorySpace.cpp:20; details: Failed to cudaMalloc 4000000000 bytes\nAborted (core dumped)")).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false, requestedBytes: 4000000000 });
    expect(root('Faiss assertion err == cudaSuccess failed in char* faiss::gpu::StackDeviceMemory::Stack::getAlloc(size_t, cudaStream_t) at utils/StackDeviceMemory.cpp:77')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda' });
  });

  it('leaves an assertion elsewhere in Faiss to the failure fallback', () => {
    expect(root("Faiss assertion 'err == cudaSuccess' failed in void faiss::gpu::runL2Norm(...) at impl/L2Norm.cu:301\nAborted (core dumped)")?.kind).toBe('not-oom');
  });
});

describe("ggml's memory pools", () => {
  it('reads a context or scratch pool too small for a tensor as a host abort, with needed and available', () => {
    const log = ['llama_model_load_internal: mem required  = 5809.34 MB', "ggml_new_tensor_impl: not enough space in the context's memory pool (needed 271388624, available 268435456)", 'zsh: segmentation fault  python ingest.py'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false, requestedBytes: 271388624, freeBytes: 268435456 });
    expect(root('ggml_new_tensor_impl: not enough space in the scratch memory pool (needed 575663104, available 536870912)')?.kind).toBe('runtime-abort');
  });

  it("reads the context's buffer that malloc did not give as a host abort", () => {
    expect(root('GGML_ASSERT: /build/llama.cpp/ggml.c:4123: ctx->mem_buffer != NULL\nAborted')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu' });
  });
});

describe('RAPIDS', () => {
  it("reads RMM's message cut after the file as a catchable GPU OOM", () => {
    expect(root('MemoryError: std::bad_alloc: out_of_memory: CUDA error at: /opt/conda/include/rmm/mr/device/cuda_memory_resource.hpp')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });

  it("reads an uncaught rmm::bad_alloc as an abort on CUDA, not the host's bad_alloc", () => {
    expect(root("terminate called after throwing an instance of 'rmm::bad_alloc'\n  what():  std::bad_alloc")).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });

  it("reads MemoryError raised through cuDF's frames as the GPU's, and NumPy's as the host's", () => {
    const ipython = ['MemoryError                               Traceback (most recent call last)', '<ipython-input-3-1f2e> in <module>', "----> 1 df = cudf.read_parquet('big.parquet')", '', 'cudf/_lib/parquet.pyx in cudf._lib.parquet.read_parquet()', '', 'MemoryError: '];
    expect(root(ipython.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    const plain = ['Traceback (most recent call last):', '  File "etl.py", line 9, in <module>', '    out = merge(a, b)', '  File "/opt/conda/lib/python3.10/site-packages/cudf/core/dataframe.py", line 3801, in merge', '    return merge_cls(...)', 'MemoryError: std::bad_alloc'];
    expect(root(plain.join('\n'))?.platform).toBe('cuda');
    expect(root('Traceback (most recent call last):\n  File "prep.py", line 3, in <module>\n    x = np.zeros((90000, 90000))\nMemoryError')?.platform).toBe('cpu');
    // The innermost frame decides: pandas' (host memory) under a cuDF call, or a project that happens to live in a folder named rmm.
    const pandas = ['Traceback (most recent call last):', '  File "/home/u/rmm/etl.py", line 5, in <module>', '    pdf = gdf.to_pandas()', '  File "/opt/conda/lib/python3.10/site-packages/pandas/core/frame.py", line 700, in __init__', '    mgr = dict_to_mgr(data)', 'MemoryError'];
    expect(root(pandas.join('\n'))?.platform).toBe('cpu');
  });
});

describe("Ray's memory monitor", () => {
  it('reads the tail a job keeps (the top users and the OOM-prevention page) as a host kill', () => {
    const log = ['1803\t12.40\tray::RolloutWorker', '1801\t11.95\tray::RolloutWorker', 'Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory on this node.', 'Job entrypoint command failed with exit code 1'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });

  it('gives the full message and its tail one verdict', () => {
    const log = ['ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.', 'Memory on the node (IP: 10.1.2.3, ID: ab12) where the task (task ID: cd34, name=rollout, pid=811, memory used=3.10GB) was running was 60.1GB / 62.8GB (0.957), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: ef56) because it was the most recently scheduled task.', 'Top 10 memory users:', 'PID\tMEM(GB)\tCOMMAND', '811\t3.10\tray::rollout', 'Refer to the documentation on how to address the out of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html.'];
    expect(verdicts(log.join('\n'))).toHaveLength(1);
  });
});

describe('out-of-memory words', () => {
  it('reads "out of GPU memory" and "not enough GPU memory" as OOMs', () => {
    expect(root('julia> x = CUDA.rand(1 << 34)\nERROR: Out of GPU memory')).toMatchObject({ kind: 'catchable-oom' });
    expect(root('2024-02-01 10:00:01 ERROR    You do not have enough GPU memory available to run the model at these settings.')?.kind).toBe('catchable-oom');
  });

  it('still reads advice about memory as no failure', () => {
    expect(verdicts('INFO: if you do not have enough GPU memory, lower the batch size')).toEqual([]);
  });
});

describe('segfault notices', () => {
  it("reads zsh's notice glued to the program's last output", () => {
    expect(root('copying arrays: done, 812.5 MB copiedzsh: segmentation fault (core dumped)  ./solver --gpu')?.kind).toBe('not-oom');
  });

  it('reads the shell naming SIGSEGV in other languages', () => {
    for (const notice of ['段错误 (核心已转储)', 'Speicherzugriffsfehler (Speicherabzug geschrieben)', 'Ошибка сегментирования (стек памяти сброшен на диск)', "Violación de segmento (`core' generado)"]) {
      expect(root(`Lade Modell...\n${notice}`)).toMatchObject({ kind: 'not-oom', catchable: false });
    }
  });
});

describe('caught OOMs that skip the batch', () => {
  it('reads a skipped batch as a caught OOM', () => {
    const log = ['Predicting: 0%|  | 0/3 [00:00<?, ?it/s]| WARNING: ran out of memory, skipping batch', 'Predicting: 100%|  | 3/3 [00:09<00:00,  3.01s/it]'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it('lets an exception after the skip be the verdict', () => {
    const log = ['WARNING: ran out of memory, skipping batch', 'Traceback (most recent call last):', '  File "report.py", line 12, in <module>', "    data = np.load('out/pred_0.npz')", "FileNotFoundError: [Errno 2] No such file or directory: 'out/pred_0.npz'"];
    expect(root(log.join('\n'))?.kind).toBe('not-oom');
  });
});

describe('one-line failures', () => {
  it("reads ComfyUI's node error with its message on the same line", () => {
    expect(root("Error occurred when executing VAEDecode:  The operator 'aten::foo' is not currently implemented for the MPS device.")).toMatchObject({ kind: 'not-oom', platform: 'mps', catchable: true });
  });

  it("reads c10's check without a message of its own", () => {
    expect(root('Expected is_sm90 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)')?.kind).toBe('not-oom');
  });
});

describe("TensorFlow's allocator", () => {
  it("reads the BFC allocator's region line alone as its dump, with the limit", () => {
    const line = '2020-01-02 10:11:12.123456: I tensorflow/core/common_runtime/bfc_allocator.cc:818] total_region_allocated_bytes_: 3221225472 memory_limit_: 3435973836 available bytes: 0 curr_region_allocation_bytes_: 6442450944';
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', allowedBytes: 3435973836, reservedBytes: 3221225472 });
  });

  it('reads the device from a node line a terminal wrapped', () => {
    const log = ['ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[4096,4096]', '\t [[Node: dense/kernel/Initializer/random_uniform = RandomUniform[T=DT_INT32, dtype=DT_FLOAT, seed=0, _dev', 'ice="/job:localhost/replica:0/task:0/device:GPU:1"](dense/kernel/Initializer/random_uniform/shape)]]'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', device: 1 });
  });
});

describe("PyTorch's allocator message", () => {
  it('reads all of a message a terminal wrapped at 80 columns over six lines', () => {
    const log = ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a', 'total capacity of 23.65 GiB of which 1.21 GiB is free. Including non-PyTorch', 'memory, this process has 22.42 GiB memory in use. Of the allocated memory 17.90', 'GiB is allocated by PyTorch, and 4.06 GiB is reserved by PyTorch but', 'unallocated. If reserved but unallocated memory is large try setting', 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'fragmentation', reservedUnallocatedBytes: Math.round(4.06 * 2 ** 30) });
  });
});

describe('user frames', () => {
  it('finds the frames printed under a message whose sentences a paste broke onto lines', () => {
    const log = ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB.', 'GPU 2 has a total capacity of 79.19 GiB of which 1.02 GiB is free.', '', 'File "rl/loss.py", line 88, in policy_loss', '    ratio = torch.exp(logp - old_logp)'];
    expect(root(log.join('\n'))!.userFrames[0]).toMatchObject({ file: 'rl/loss.py', line: 88 });
  });

  it("finds the frames under a Ray task's header and its carets", () => {
    const log = ['ray.exceptions.RayTaskError(OutOfMemoryError): ray::Trainer.run() (pid=4242, ip=10.0.0.7, actor_id=abc)', '           ^^^^^^^^^^^^^^^^^^^^', '  File "/workspace/proj/trainer/main.py", line 140, in run', '    self.fit()'];
    expect(root(log.join('\n'))!.userFrames[0]).toMatchObject({ file: '/workspace/proj/trainer/main.py', line: 140 });
  });

  it('reads across frames a paste elided with "..."', () => {
    const log = ['Traceback (most recent call last):', '  File "tools/search.py", line 41, in <module>', '    index = load(args.index)', '...', 'RuntimeError: CUDA error: out of memory'];
    expect(root(log.join('\n'))!.userFrames[0]).toMatchObject({ file: 'tools/search.py', line: 41 });
  });

  it("takes a program installed whole in a bin folder as the user's code, and pip's console-script wrapper as not", () => {
    const whole = ['Traceback (most recent call last):', '  File "/usr/bin/crackit", line 400, in <module>', '    main()', '  File "/usr/bin/crackit", line 212, in bench', '    core = engine.Core()', '  File "/usr/lib64/python2.7/site-packages/engine.py", line 80, in __init__', '    raise SystemError("CUDA_ERROR_OUT_OF_MEMORY")', 'SystemError: CUDA_ERROR_OUT_OF_MEMORY'];
    expect(root(whole.join('\n'))!.userFrames[0]).toMatchObject({ file: '/usr/bin/crackit', line: 212 });
    const wrapper = ['Traceback (most recent call last):', '  File "/venv/bin/separate", line 8, in <module>', '    sys.exit(main())', '  File "/venv/lib/python3.10/site-packages/sep/cli.py", line 30, in main', '    model.cuda()', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.'];
    expect(root(wrapper.join('\n'))!.userFrames).toEqual([]);
  });
});

describe('platform words', () => {
  it("reads the amdgpu driver, HIP's namespace and Intel's compute runtime, and not a protein named hipAB", () => {
    expect(root('[  811.20] amdgpu: sq_intr: error, se 0, data 0x0, sh 1, priv 1, wave_id 3, simd_id 2, cu_id 7, err_type 2\nSegmentation fault')?.platform).toBe('rocm');
    expect(root('Segmentation fault from GPU at 0xff00ffff00000000, ctx_id: 1 (CCS) type: 0 (NotPresent), level: 1 (PDE), access: 0 (Read), banned: 1, aborting.\nAborted')?.platform).toBe('xpu');
    expect(root('INFO | Reading sequences from hipAB.fasta\nINFO | Failed (CUDA out of memory) on sequence hipAB-1 of length 918.\nERROR: CUDA out of memory')?.platform).toBe('cuda');
  });

  it("names the device from a miner's bracket and the rank from a launched command's --local_rank", () => {
    expect(root("00:40:28 TREX: Can't find nonce with device [ID=5, GPU #5], cuda exception: CUDA_ERROR_OUT_OF_MEMORY")).toMatchObject({ kind: 'catchable-oom', device: 5 });
    expect(root("subprocess.CalledProcessError: Command '['/usr/bin/python', '-u', 'train.py', '--local_rank=3', 'cfg.py']' died with <Signals.SIGKILL: 9>.")).toMatchObject({ kind: 'host-oom', rank: 3 });
  });
});

describe("a review of blind44's classes", () => {
  it('lets a failure stated at the end outrank a caught OOM before it', () => {
    const log = ['Warning: Ran out of memory when regular VAE decoding, retrying with tiled VAE decoding.', 'Saving image to output/x.png', 'fatal: could not write output file: Permission denied'];
    expect(root(log.join('\n'))?.kind).toBe('not-oom');
  });

  it("reads Faiss's cudaMalloc failing with another status as that failure, not an OOM", () => {
    const line = "RuntimeError: Error in void* faiss::gpu::allocMemorySpaceV(faiss::gpu::MemorySpace, void**, size_t) at /faiss/gpu/utils/MemorySpace.cpp:26: Error: 'err == cudaSuccess' failed: Failed to cudaMalloc 1610612736 bytes on device 0 (error 100 no CUDA-capable device is detected";
    expect(root(line)?.kind).toBe('not-oom');
  });

  it('takes the NVIDIA card over the amdgpu driver of an integrated GPU, and knows HIP libraries by name', () => {
    expect(root('[    1.234] [drm] amdgpu kernel modesetting enabled.\nUsing device: NVIDIA GeForce RTX 4070 Laptop GPU\nSegmentation fault (core dumped)')?.platform).toBe('cuda');
    expect(root('RuntimeError: hipFFT error: HIPFFT_EXEC_FAILED')?.platform).toBe('rocm');
  });

  it('reads advice about GPU memory as no failure', () => {
    expect(verdicts('Tip: use --lowvram if you do not have enough GPU memory\nModel loaded')).toEqual([]);
    expect(verdicts('Tip: use --swap if your machine does not have enough memory\nStarting server')).toEqual([]);
  });

  it('keeps installed bin scripts (under node_modules or site-packages) as library frames', () => {
    const log = ['Traceback (most recent call last):', '  File "/home/u/job/run.py", line 14, in <module>', '    launch(cfg)', '  File "/home/u/.venv/lib/python3.11/site-packages/nemo/bin/launcher", line 40, in launch', '    torch.zeros(n, device="cuda")', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 GiB.'];
    expect(root(log.join('\n'))!.userFrames[0]).toMatchObject({ file: '/home/u/job/run.py', line: 14 });
  });

  it("does not borrow the next message's device for a node line that is not wrapped", () => {
    const log = ['ResourceExhaustedError: OOM when allocating tensor with shape[1024,1024]', '\t [[node dense/MatMul (defined at train.py:10) ', 'Worker 2: OOM when allocating on /job:worker/replica:0/task:2/device:GPU:3'];
    expect(root(log.join('\n'))?.device).toBeUndefined();
  });
});
