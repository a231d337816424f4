// The message classes blind batch 45 showed the engine did not read: MuJoCo's arena and allocation errors, "could not
// allocate memory", ggml's Vulkan allocation and a host app's report of ggml's CUDA error, PHP's memory fatal errors, TVM's
// InternalError checks (thrown, not aborting) and its storage region, Windows' low-virtual-memory report, Windows crash
// statuses as decimal exit codes, Ray's RayTaskError wrapping another exception (and its remote traceback as the frames),
// Ray's RayOutOfMemoryError inside a task error, cudaMallocAsync's message cut after its device, a CUDA check's trailing
// "(device N)", and NVIDIA's compute capabilities as CUDA words. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('MuJoCo', () => {
  it("reads its arena overflow with the request and what was left; an abort under its default handler, catchable from Python", () => {
    expect(root('ERROR: mj_stackAlloc: out of memory, stack overflow\n  max = 0, available = 0, requested = 48\n  nefc = 0, ncon = 0\n\nPress Enter to exit ...')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', requestedBytes: 48, freeBytes: 0 });
    expect(root('mujoco.FatalError: mj_stackAlloc: out of memory, stack overflow at mj_fwdConstraint, line 120\n  max = 8388608, available = 8388000, requested = 9000000')).toMatchObject({ kind: 'catchable-oom', catchable: true, requestedBytes: 9000000, freeBytes: 8388000 });
  });

  it('reads "Could not allocate memory" as an OOM', () => {
    expect(root('Traceback (most recent call last):\n  File "sim.py", line 8, in <module>\n    data = mujoco.MjData(model)\nmujoco.FatalError: Could not allocate memory')).toMatchObject({ kind: 'catchable-oom' });
  });
});

describe('ggml hosts', () => {
  it("reads the Vulkan backend's failed allocation with its size, on the card the load log names", () => {
    const log = ['llama_model_load_from_file_impl: using device Vulkan0 (Intel(R) Arc(TM) A750 Graphics) - 7800 MiB free', 'Failed to load model: Error: ggml_vulkan: Device memory allocation of size 1048576000 failed.'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', requestedBytes: 1048576000 });
  });

  it("reads an app's report of ggml's CUDA error as ggml's abort", () => {
    expect(root('GGML backend encountered an error [4242] 0.01.200.300 E CUDA error: out of memory')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda' });
  });
});

describe("PHP's memory manager", () => {
  it('reads both fatal errors as aborts on the host, with their numbers', () => {
    expect(root('PHP Fatal error:  Allowed memory size of 268435456 bytes exhausted (tried to allocate 65536 bytes) in /srv/app/index.php on line 40')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', requestedBytes: 65536, allowedBytes: 268435456 });
    expect(root('Fatal error: Out of memory (allocated 4194304) (tried to allocate 8192 bytes) in /srv/app/lib.php on line 7')).toMatchObject({ kind: 'runtime-abort', allocatedBytes: 4194304, requestedBytes: 8192 });
  });
});

describe('TVM', () => {
  it('reads an InternalError check as a thrown error, not an abort', () => {
    expect(root('tvm/src/runtime/cuda/cuda_device_api.cc:129: InternalError: Check failed: (e == cudaSuccess || e == cudaErrorCudartUnloading) is false: CUDA: out of memory')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });

  it("reads the Relax VM's storage region with the request and the region's size", () => {
    const line = '[10:00:00] /src/tvm/src/runtime/relax_vm/memory_manager.cc:115: InternalError: Check failed: (offset + needed_size <= this->buffer.size) is false: storage allocation failure, attempted to allocate 33554944 at offset 0 in region that is 33554432bytes';
    expect(root(line)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 33554944, allowedBytes: 33554432 });
  });
});

describe('Windows', () => {
  it('reads the low-virtual-memory report as a host OOM, with the top consumer', () => {
    const line = 'Windows successfully diagnosed a low virtual memory condition. The following programs consumed the most virtual memory: python.exe (4242) consumed 68719476736 bytes, explorer.exe (1200) consumed 104857600 bytes.';
    expect(root(line)).toMatchObject({ kind: 'host-oom', platform: 'cpu', processInUseBytes: 68719476736 });
  });

  it('reads crash statuses printed as decimal exit codes as native crashes', () => {
    expect(root('Process finished with exit code -1073741819 (0xC0000005)')?.kind).toBe('not-oom');
    expect(root('worker exited before becoming ready. exitCode=3221225477, signal=null')?.kind).toBe('not-oom');
  });
});

describe('Ray', () => {
  it('reads a task error wrapping another exception as that failure, with the remote traceback as the innermost frames', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/rl/main.py", line 30, in main',
      '    ray.get(runner.run.remote())',
      '  File "/venv/lib/python3.11/site-packages/ray/_private/worker.py", line 2755, in get',
      '    raise value.as_instanceof_cause()',
      'ray.exceptions.RayTaskError(KeyError): ray::Runner.run() (pid=77, ip=10.0.0.2, actor_id=ab)',
      '  File "/home/u/rl/runner.py", line 52, in run',
      "    cfg['missing']",
      "KeyError: 'missing'",
    ];
    const v = root(log.join('\n'));
    expect(v?.kind).toBe('not-oom');
    expect(v!.userFrames[0]).toMatchObject({ file: '/home/u/rl/runner.py', line: 52 });
  });

  it("reads RayOutOfMemoryError inside a task error as the memory monitor's host OOM", () => {
    expect(root('ray.exceptions.RayTaskError(RayOutOfMemoryError): ray::PPO.train() (pid=448, ip=172.20.1.5)')?.kind).toBe('host-oom');
  });
});

describe('small readings', () => {
  it("takes the device from cudaMallocAsync's message cut after it", () => {
    expect(root('torch.OutOfMemoryError: Allocation on device 2')).toMatchObject({ kind: 'catchable-oom', device: 2 });
  });

  it('takes the device a CUDA check prints at the end of its message', () => {
    expect(root('[Error] [gpu.plugin] CUDA error in memcpy: an illegal memory access was encountered: src/Copy.cpp: 88 (device 1)')).toMatchObject({ kind: 'not-oom', device: 1 });
  });

  it("reads NVIDIA's compute capabilities as CUDA words", () => {
    expect(root('RuntimeError: Expected is_sm80 || is_sm90 to be true, but got false.')?.platform).toBe('cuda');
  });
});

describe("a review of blind45's classes", () => {
  const verdicts = (text: string) => triageFailures(text, 'log').verdicts;

  it('reads the decimal crash statuses only as exit or return codes', () => {
    expect(verdicts('Downloaded 3221225477 bytes, status: done\nLoading checkpoint shards: 100%\nModel ready.')).toEqual([]);
    expect(verdicts('seed: -1073741819 (error correction enabled)\nstep 1 loss 2.30')).toEqual([]);
  });

  it("leaves a script's own 'Press Enter to exit' after a caught error catchable", () => {
    expect(root('RuntimeError: not enough memory: you tried to allocate 1073741824 bytes.\nPress Enter to exit.')).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("takes Ray's frames listed under its error, not a later traceback with a header of its own", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/proj/driver.py", line 20, in main',
      '    ray.get(t.train.remote())',
      'ray.exceptions.RayTaskError(RayOutOfMemoryError): ray::Trainer.train() (pid=1234, ip=10.0.0.1)',
      'Exception ignored in atexit callback: <function shutdown>',
      'Traceback (most recent call last):',
      '  File "/home/u/proj/utils/cleanup.py", line 12, in shutdown',
      '    os.remove(tmp)',
    ];
    expect(root(log.join('\n'))!.userFrames[0]).toMatchObject({ file: '/home/u/proj/driver.py', line: 20 });
  });

  it("reads Windows' report only as its event's text, and under any failure the log shows", () => {
    expect(verdicts('FAQ: If you see "Windows successfully diagnosed a low virtual memory condition", increase the paging file.\nModel loaded.')).toEqual([]);
    const log = ['Application popup: Windows - Out of Virtual Memory : Your system is low on virtual memory.', 'Traceback (most recent call last):', '  File "gen.py", line 5, in <module>', '    x = torch.empty(2**31, device="cuda")', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 8.00 GiB of which 0 bytes is free.'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it('reads a fallback after a failed allocation as no failure', () => {
    expect(verdicts('[ERROR] Could not allocate pinned memory, falling back to pageable memory\nstep 100 loss 1.2\nFinished training.')).toEqual([]);
  });

  it('reads "Allocation on device N" as cudaMallocAsync only after the exception type', () => {
    expect(verdicts('INFO: Allocation on device 1\nModel loaded in 3.2s\nServer started.')).toEqual([]);
  });

  it("keeps a host compiler's OOM on the host when its flags name a CUDA arch", () => {
    expect(root('[3/10] c++ -O3 -DARCH=sm_80 -c csrc/kernel_sm80.cpp -o k.o\nvirtual memory exhausted: Cannot allocate memory')?.platform).toBe('cpu');
  });

});
