// The message classes blind batch 17 showed the engine did not know: Google Colab's notice of a runtime
// that ran out of RAM, the kernel's victim line in RHEL 6's format (the uid before the name), Redis's
// zmalloc OOM panic and mimalloc's allocation error. Each test is a variant written for the class (other
// numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('host kills no hot anchor read', () => {
  it("reads Colab's 'Your session crashed after using all available RAM' as a host kill", () => {
    const log = ['Epoch 3/10', '1204/5000 [=====>........] - ETA: 9:41', 'Your session crashed after using all available RAM. View runtime logs'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    // A crash for another reason is not this class.
    expect(root('Your session crashed for an unknown reason.')?.kind).not.toBe('host-oom');
  });

  it("reads the RHEL 6 kernel's victim line with the uid before the name, and its resident size", () => {
    const log = 'Feb 11 04:12:55 db2 kernel: Killed process 30422, UID 27, (postgres) total-vm:4194304kB, anon-rss:1048576kB, file-rss:512kB';
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', processInUseBytes: 1073741824 });
    expect(root(log)?.summary).toContain('postgres');
  });
});

describe('host allocation failures the tail pass reads', () => {
  it("reads Redis's zmalloc OOM panic as an abort, with the request when zmalloc printed it", () => {
    const log = [
      '7788:M 02 Jan 2024 10:11:12.131 # Out Of Memory allocating 65544 bytes!',
      '7788:M 02 Jan 2024 10:11:12.131 # === REDIS BUG REPORT START: Cut & paste starting from here ===',
      '7788:M 02 Jan 2024 10:11:12.131 # ------------------------------------------------',
      '7788:M 02 Jan 2024 10:11:12.131 # !!! Software Failure. Press left mouse button to continue',
      '7788:M 02 Jan 2024 10:11:12.131 # Guru Meditation: Redis aborting for OUT OF MEMORY. Allocating 65544 bytes! #server.c:6722',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false, requestedBytes: 65544 });
    expect(root('1:M 5 May 03:04:05.678 # Guru Meditation: "Redis aborting for OUT OF MEMORY" #redis.c:4011')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu' });
    expect(root('9:M 01 Feb 2025 08:00:00.000 # Guru Meditation: Redis aborting for OUT OF MEMORY. Allocating 1048600 bytes! #server.c:7011')).toMatchObject({ kind: 'runtime-abort', requestedBytes: 1048600 });
  });

  it("reads mimalloc's 'unable to allocate memory (N bytes)' as a catchable host OOM with the request", () => {
    const log = [
      'mimalloc: warning: unable to allocate OS memory (error: 12 (0x0c), addr: 0x0, size: 0x4000000 bytes, align: 0x400000, commit: 1, allow large: 0)',
      'mimalloc: error: unable to allocate memory (4194304 bytes)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true, requestedBytes: 4194304 });
    // Its warnings alone are not the failure.
    expect(root('mimalloc: warning: unable to allocate OS memory (error: 12 (0x0c), size: 0x4000000 bytes)')?.kind).not.toBe('catchable-oom');
  });
});

describe('refusals and reports the tail pass reads', () => {
  it("reads Ollama's 'model requires more system memory' as a catchable host OOM with the estimate and what is available", () => {
    const log = 'time=2025-03-04T05:06:07.890Z level=INFO source=server.go:105 msg="system memory" total="15.5 GiB" free="6.1 GiB"\nError: model requires more system memory (44.0 GiB) than is available (6.1 GiB)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true, requestedBytes: 47244640256, freeBytes: 6549825126 });
  });

  it("reads vLLM's client seeing its engine process die as a report of a failure, below the failure itself", () => {
    const report = 'ERROR 06-07 08:09:10 [core_client.py:564] Engine core proc EngineCore_DP1 died unexpectedly, shutting down client.';
    expect(root(report)).toMatchObject({ kind: 'not-oom', catchable: false });
    const log = ['Traceback (most recent call last):', '  File "/opt/venv/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 88, in __init__', 'ValueError: Model architectures [\'FooForCausalLM\'] are not supported for now.', report].join('\n');
    expect(root(log)?.summary).not.toContain('died unexpectedly');
  });

  it("reads the CUDA samples' CUDA_CHECK form 'CUDA error N at file:line: message' as a CUDA error", () => {
    expect(root('llama_model_load: loading tensors\nCUDA error 100 at /src/ggml-cuda.cu:481: no CUDA-capable device is detected')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('CUDA error 35 at kernels/reduce.cu:77: CUDA driver version is insufficient for CUDA runtime version')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('collective timeouts told by their stack alone', () => {
  it("reads PyTorch 2.8+'s Watchdog::runLoop frame right under WorkNCCL::checkTimeout as a collective timeout", () => {
    const lib = '/opt/conda/lib/python3.11/site-packages/torch/lib';
    const log = [
      `(TrainWorker pid=31337) Exception raised from checkTimeout at /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:702 (most recent call first):`,
      `(TrainWorker pid=31337) frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f0000001000 in ${lib}/libc10.so)`,
      `(TrainWorker pid=31337) frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x2b1 (0x7f0000002000 in ${lib}/libtorch_cuda.so)`,
      `(TrainWorker pid=31337) frame #2: c10d::ProcessGroupNCCL::Watchdog::runLoop() + 0x14f1 (0x7f0000003000 in ${lib}/libtorch_cuda.so)`,
      `(TrainWorker pid=31337) frame #3: c10d::ProcessGroupNCCL::Watchdog::run() + 0xd2 (0x7f0000004000 in ${lib}/libtorch_cuda.so)`,
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'hang', platform: 'cuda', catchable: false });
    // Under another call (a CUDA error the watchdog found while polling) it is not a timeout.
    const error = log.replace('WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >)', 'WorkNCCL::isCompleted()');
    expect(root(error)?.kind).not.toBe('hang');
  });
});

describe('WebAssembly running out of its linear memory', () => {
  it("reads Emscripten's and V8's out-of-memory for a module's heap as a catchable OOM", () => {
    expect(root('worker.js:1 Uncaught RuntimeError: Aborted(OOM). Build with -sASSERTIONS for more info.')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    expect(root('Cannot enlarge memory arrays to size 4294975488 bytes (OOM). Either (1) compile with -sINITIAL_MEMORY=X with X higher than the current value 16777216')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 4294975488 });
    expect(root('Uncaught (in promise) RangeError: WebAssembly.Memory(): could not allocate memory')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it('reads a wasm trap the line reports as out of memory, with wasm frames under it, and not without them', () => {
    const log = ['[worker] allocation failed: RuntimeError: unreachable (out of memory)', '    at wasm://wasm/00ab12cd:wasm-function[311]:0x4a1f', '    at wasm://wasm/00ab12cd:wasm-function[12]:0x1b00'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(root('RuntimeError: unreachable (out of memory)\n    at main (app.js:3:9)')?.summary ?? '').not.toContain('WebAssembly');
  });
});

describe("Horovod's gloo launcher", () => {
  it("reads 'Process N exit with status code 137' as a host kill of rank N, other codes as the launcher's report", () => {
    const log = ['[2]<stderr>:Traceback (most recent call last):', '[5]<stderr>:Killed', 'Process 5 exit with status code 137.', 'Process 1 exit with status code 143.'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', rank: 5 });
    expect(root('Process 3 exit with status code 1.')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe("torchelastic's SignalException behind a prefix", () => {
  it("reads 'SignalException: Process N got signal: S' anywhere on the line as not-oom", () => {
    expect(root('run_finetune.sh: torch.distributed.elastic.multiprocessing.api.SignalException: Process 4410 got signal: 15')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('[launcher] SignalException: Process 77 got signal: Signals.SIGHUP')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe('frames behind a logger prefix, above the exception', () => {
  it("reads the frames above an exception when every line, Python 3.11's caret line too, carries the same logger prefix (Ray's and vLLM's)", () => {
    const p = (pid: number) => `(Worker_TP3 pid=${pid}) ERROR 02-14 09:30:11 [multiproc_executor.py:640] `;
    const log = [
      `${p(9021)}  File "/srv/app/engine/attention.py", line 211, in forward`,
      `${p(9021)}    out = torch.matmul(q, k.transpose(-1, -2))`,
      // Python 3.11's caret line: behind the prefix it is no body line, and it used to end the traceback.
      `${p(9021)}          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^`,
      `${p(9021)}torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.19 GiB of which 1.02 GiB is free.`,
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/srv/app/engine/attention.py', line: 211 });
  });
});

describe("SQLite's CANTOPEN", () => {
  it("reads 'unable to open database file' as not-oom, also beside the 'out of memory' SQLite prints with code 14", () => {
    expect(root('backupd: restore: unable to open database file: out of memory (14)')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(root('Error: SQLITE_CANTOPEN: unable to open database file')).toMatchObject({ kind: 'not-oom' });
  });
});

describe("IPython's out-of-memory header with its frames under it", () => {
  it("reads the user's cell frame under the header, Colab's IPython 7 naming module code '<cell line: N>'", () => {
    const log = [
      '---------------------------------------------------------------------------',
      'OutOfMemoryError                          Traceback (most recent call last)',
      '/tmp/ipykernel_812/2203941187.py in <cell line: 0>()',
      '      3 model.to("cuda")',
      '----> 4 outputs = model.generate(**inputs, max_new_tokens=512)',
      '',
      '/usr/local/lib/python3.11/dist-packages/torch/utils/_contextlib.py in decorate_context(*args, **kwargs)',
      '--> 116             return func(*args, **kwargs)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom' });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/tmp/ipykernel_812/2203941187.py', line: 4 });
  });
});
