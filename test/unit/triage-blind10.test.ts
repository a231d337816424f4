// The message classes blind batch 10 showed the engine did not know, above all the two fallbacks
// (any other failure -> not-oom, any other out-of-memory wording -> catchable-oom). Each test is a
// variant written for the class (other numbers, paths, prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];
const GiB = 1024 ** 3;

const TB = ['Traceback (most recent call last):', '  File "/home/me/proj/train.py", line 41, in <module>', '    run(cfg)', '  File "/home/me/proj/loop.py", line 17, in run', '    step(batch)'];

describe('fallback: any other failure is not-oom', () => {
  it('reads the exception that ends a Python traceback, with its frames, as a catchable not-oom', () => {
    const log = [...TB, "KeyError: 'labels'"].join('\n');
    expect(all(log)).toHaveLength(1);
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true, userFrames: [{ file: '/home/me/proj/loop.py', line: 17 }, { file: '/home/me/proj/train.py', line: 41 }] });
    expect(root(log)!.explanation).toMatch(/not an out-of-memory error/);
    // A bare type line (no message) under its traceback.
    expect(root([...TB, 'my_pkg.rendezvous.api.RendezvousTimeoutError'].join('\n'))).toMatchObject({ kind: 'not-oom', catchable: true });
    // The platform comes from the lines around it.
    expect(root(['Using CUDA device 0', ...TB, 'RuntimeError: cuDNN error: CUDNN_STATUS_MAPPING_ERROR_X'].join('\n'))).toMatchObject({ platform: 'cuda' });
  });

  it('takes the failure the log ended with, not a traceback the program printed and went on from', () => {
    const log = [...TB, 'ValueError: sample 12 skipped', 'epoch 2 ...', 'epoch 3 ...', ...TB, 'ZeroDivisionError: division by zero'].join('\n');
    expect(all(log)).toHaveLength(1);
    expect(root(log)!.summary).toMatch(/ZeroDivisionError/);
  });

  it('does not take a traceback the program went on from, with ordinary output to the end, for the failure', () => {
    const steps = Array.from({ length: 300 }, (_, i) => `step ${i} loss 0.${i}`);
    expect(all([...TB, 'ValueError: sample 12 skipped', ...steps].join('\n'))).toEqual([]);
    // A few lines after it (a launcher's summary) still leave it the failure.
    expect(root([...TB, 'ValueError: bad config', 'ERROR: worker 0 exited', 'cleaning up'].join('\n'))).toMatchObject({ kind: 'not-oom' });
  });

  it('reads native crashes and aborts as not catchable', () => {
    expect(root("terminate called after throwing an instance of 'std::out_of_range'\n  what():  vector::_M_range_check: __n (which is 7) >= this->size() (which is 3)\nAborted (core dumped)")).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('step 10\nstep 11\nSegmentation fault (core dumped)')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('F0102 03:04:05.678901  4242 conv_layer.cu:33] Check failed: status == CUDNN_STATUS_SUCCESS (9 vs. 0)  CUDNN_STATUS_NOT_SUPPORTED')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('Fatal Python error: Segmentation fault\n\nThread 0x00007f (most recent call first):')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('corrupted size vs. prev_size\n\nProcess finished with exit code 134 (interrupted by signal 6: SIGABRT)')).toMatchObject({ kind: 'not-oom', catchable: false });
  });

  it("reads torchrun's ChildFailedError table (its rank) and launchers' exit and SIGTERM lines", () => {
    const summary = [
      'torch.distributed.elastic.multiprocessing.errors.ChildFailedError:',
      '============================================================',
      'train.py FAILED',
      '------------------------------------------------------------',
      'Root Cause (first observed failure):',
      '[0]:',
      '  time      : 2025-06-01_10:00:00',
      '  host      : node3',
      '  rank      : 5 (local_rank: 1)',
      '  exitcode  : 1 (pid: 4242)',
    ].join('\n');
    expect(root(summary)).toMatchObject({ kind: 'not-oom', catchable: false, rank: 5 });
    expect(root('W0101 00:00:01.000000 77 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 78 closing signal SIGTERM')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('[launcher] worker 3 exited with non-zero exit code 2')).toMatchObject({ kind: 'not-oom' });
  });

  it("reads MPICH's BAD TERMINATION banner: EXIT CODE 9 is a kill, another code is not-oom", () => {
    const banner = (code: number) => ['=====', '=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES', '=   PID 1234 RUNNING AT nodeA', `=   EXIT CODE: ${code}`, '=   CLEANING UP REMAINING PROCESSES'].join('\n');
    expect(root(banner(9))).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root(banner(139))).toMatchObject({ kind: 'not-oom' });
  });

  it('never adds a second verdict or displaces a real one, and ignores warnings', () => {
    const oom = [...TB, 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.10 GiB is free.', 'Aborted (core dumped)', 'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: train.py FAILED'].join('\n');
    expect(all(oom)).toHaveLength(1);
    expect(root(oom)).toMatchObject({ kind: 'catchable-oom', requestedBytes: 2 * GiB });
    expect(all('UserWarning: this overload is deprecated\nDeprecationWarning: use x instead\ntraining finished')).toEqual([]);
  });
});

describe("TensorFlow's ResourceExhaustedError without a message", () => {
  it('reads it as a catchable OOM, with the frames of an IPython traceback under its header', () => {
    expect(root('tensorflow.python.framework.errors_impl.ResourceExhaustedError: ')).toMatchObject({ kind: 'catchable-oom', catchable: true });
    const nb = ['ResourceExhaustedError                    Traceback (most recent call last)', '', '<ipython-input-7-0a1b2c3d4e5f> in <module>()', '      3 ', '----> 4 model.fit(x, y, batch_size=512)', '', '5 frames'].join('\n');
    expect(root(nb)).toMatchObject({ kind: 'catchable-oom', userFrames: [{ file: '<ipython-input-7-0a1b2c3d4e5f>', line: 4 }] });
  });
});

describe('fallback: any other out-of-memory error', () => {
  it("reads other runtimes' out-of-memory words, with the size the line prints", () => {
    expect(root('Exception in thread "pool-3-thread-1" java.lang.OutOfMemoryError: GC overhead limit exceeded')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    const lua = '/opt/torch/share/lua/5.1/nn/Linear.lua:66: $ Torch: not enough memory: you tried to allocate 3GB. Buy new RAM! at /build/TH/THGeneral.c:270\nstack traceback:\n\t[C]: in function \'addmm\'';
    expect(root(lua)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 3 * GiB });
    const theano = 'MemoryError: Error allocating 67108864 bytes of device memory (out of memory). Driver report 1048576 bytes free and 4294967296 bytes total';
    expect(root(theano)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 67108864, freeBytes: 1048576, deviceTotalBytes: 4294967296 });
    expect(root('RuntimeError: TensorStorage /src/tv/tensor.h 170\ncuda failed with error 2 out of memory. use CUDA_LAUNCH_BLOCKING=1 to get correct traceback.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root('shmalloc: Failed source memory allocation: Cannot allocate memory')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it('reads a glog FATAL or an abort right after as a runtime-abort, on the platform the log names', () => {
    expect(root('F0303 11:22:33.444444  9999 syncedmem.cpp:56] Check failed: error == cudaSuccess (2 vs. 0)  out of memory\n*** Check failure stack trace: ***')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
    expect(root('Using ROCm 6.1 on gfx1100\nERROR: device allocation failed: out of memory\nAborted (core dumped)')).toMatchObject({ kind: 'runtime-abort', platform: 'rocm' });
  });

  it('keeps its repeats in one group, so they never crowd out a specific failure printed later', () => {
    const lines = Array.from({ length: 250 }, (_, i) => `ERROR: cache refill failed: out of memory allocating ${i + 1} MB`);
    lines.push('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 15.77 GiB of which 200.00 MiB is free.');
    expect(all(lines.join('\n'))).toMatchObject([{ kind: 'catchable-oom', requestedBytes: GiB, platform: 'cuda' }]);
  });

  it('ignores advice, warnings and code, and yields to a specific verdict', () => {
    expect(all('Tip: if you run out of memory, lower --batch\nW0101 00:00:00 x.cc:1] Not enough memory for the fast path; using the slow one\n    except MemoryError as e:  # out of memory')).toEqual([]);
    const withKill = 'Error: worker ran out of memory?\n[12345.678] Out of memory: Killed process 4321 (python) total-vm:1000kB, anon-rss:2048kB, file-rss:0kB';
    expect(all(withKill)).toHaveLength(1);
    expect(root(withKill)).toMatchObject({ kind: 'host-oom' });
  });
});

describe("blind10's other message classes", () => {
  it('reads a shell kill an issue set in markdown bold or code', () => {
    expect(root('epoch 3, iter 120, loss 0.41\n\n**Killed**')).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('step 88/1000\n`Killed`')).toMatchObject({ kind: 'host-oom' });
  });

  it("reads oomd's memory kill actions, not its other actions", () => {
    // facebookincubator/oomd engine/Ruleset.cpp: OLOG << "Running Action=" << action->getName().
    expect(root('May 3 01:02:03 host oomd[812]: [../src/oomd/engine/Ruleset.cpp:112] Running Action=kill_by_swap_usage')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(root('oomd[9]: [Ruleset.cpp:112] Running Action=kill_by_pressure')).toMatchObject({ kind: 'host-oom' });
    expect(all('oomd[9]: [Ruleset.cpp:112] Running Action=kill_by_io_cost')).toEqual([]);
  });

  it("reads PyTorch's HIP message broken at its sentences, with its numbers", () => {
    const log = [
      'torch.OutOfMemoryError: HIP out of memory. ',
      'Tried to allocate 64.00 MiB. GPU 1 has a total capacity of 23.98 GiB of which 20.00 MiB is free. ',
      'Of the allocated memory 22.50 GiB is allocated by PyTorch, and 12.00 MiB is reserved by PyTorch but unallocated.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', device: 1, requestedBytes: 64 * 1024 ** 2, allocatedBytes: Math.round(22.5 * GiB) });
  });

  it('reads an aborting error check on a HIP out-of-memory status as a runtime-abort on ROCm', () => {
    expect(root('amrex::Abort::0::HIP error in file /src/AMReX_Arena.cpp line 220 hipErrorOutOfMemory !!!\nSIGABRT')).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false });
    expect(root('hipMalloc failed: hipErrorOutOfMemory')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
    const camp = "terminate called after throwing an instance of 'std::runtime_error'\n  what():  myHipCheck(hipMallocAsync(&p, n, s)) out of memory /src/res/hip.hpp:88";
    expect(root(camp)).toMatchObject({ kind: 'runtime-abort', platform: 'rocm', catchable: false });
  });
});

describe('allocator dumps printed only after a failed allocation, the OOM line cut off', () => {
  it("reads TensorFlow's BFC Stats block (limit and in-use) and XLA's cudaMallocAsync histogram", () => {
    const bfc = [
      '2021-07-08 09:10:11.121314: I tensorflow/core/common_runtime/bfc_allocator.cc:1040] Sum Total of in-use chunks: 7.10GiB',
      '2021-07-08 09:10:11.121320: I tensorflow/core/common_runtime/bfc_allocator.cc:1042] Stats: ',
      'Limit:                 7812333568',
      'InUse:                 7623458816',
      'MaxInUse:              7700000000',
    ].join('\n');
    expect(root(bfc)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, allowedBytes: 7812333568, allocatedBytes: 7623458816 });
    const hist = ['E0505 05:05:05.000001 777 gpu_cudamallocasync_allocator.cc:80] 1024, 12', 'E0505 05:05:05.000002 777 gpu_cudamallocasync_allocator.cc:80] 8388608, 3'].join('\n');
    expect(all(hist)).toHaveLength(1);
    expect(root(hist)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    // With the OOM message in the log, that message is the verdict.
    const both = [bfc, '2021-07-08 09:10:11.2: W tensorflow/core/framework/op_kernel.cc:1763] OP_REQUIRES failed at matmul_op.cc:480 : Resource exhausted: OOM when allocating tensor with shape[8192,8192] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc'].join('\n');
    expect(all(both)).toHaveLength(1);
    expect(root(both)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root(both)!.evidence.some((e) => e.text.includes('OOM when allocating'))).toBe(true);
  });
});

describe('NCCL failures the engine did not read', () => {
  it("reads NCCL's CUDACHECK on a non-memory CUDA failure and OpenPPL's NCCL error check as not-oom", () => {
    expect(root("node4:901:901 [2] NCCL INFO cudaDriverVersion 12040\nnode4:901:901 [2] NCCL WARN Cuda failure 'invalid device function'")).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // 'out of memory' stays a collective OOM.
    expect(root("node4:901:901 [2] NCCL WARN Cuda failure 'out of memory'")).toMatchObject({ kind: 'collective-oom' });
    expect(root('[ERROR][2024-01-02 03:04:05.678][nccl_utils.h:110] NCCL error(code:3) on ncclAllReduce')).toMatchObject({ kind: 'not-oom', catchable: false });
    // Every ncclResult_t the old 'NCCL Error N: …' spelling prints, not only 1 (ncclUnhandledCudaError).
    expect(root('[rank3]: RuntimeError: NCCL Error 6: remote process exited or there was a network error')).toMatchObject({ kind: 'not-oom', catchable: false, rank: 3 });
  });

  it("reads a collective timeout from the watchdog's C++ stack alone (the handler under checkTimeout)", () => {
    const frames = [
      'Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:600 (most recent call first):',
      'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f00 in /opt/torch/lib/libc10.so)',
      'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1c0 (0x7f01 in /opt/torch/lib/libtorch_cuda.so)',
      'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x220 (0x7f02 in /opt/torch/lib/libtorch_cuda.so)',
    ].join('\n');
    expect(root(frames)).toMatchObject({ kind: 'hang', platform: 'cuda' });
    // The handler under another frame (an error the watchdog found, not a timeout) is not a hang.
    const other = 'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x50 (0x7f in libtorch_cuda.so)\nframe #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x220 (0x7f in libtorch_cuda.so)';
    expect(all(other).some((v) => v.kind === 'hang')).toBe(false);
  });
});

describe('more of the failure and OOM fallbacks', () => {
  it("takes the rank of torchrun's root-cause table when the ChildFailedError line was cut off", () => {
    const table = ['  exitcode  : 1 (pid: 501)', 'Root Cause (first observed failure):', '[0]:', '  time      : 2025-02-02_02:02:02', '  host      : gpu-7', '  rank      : 12 (local_rank: 4)', '  exitcode  : -6 (pid: 777)', '  error_file: <N/A>'].join('\n');
    expect(root(table)).toMatchObject({ kind: 'not-oom', rank: 12, catchable: false });
  });

  it("reads torch_xla's ReportComputationError stack as a not-oom XLA failure", () => {
    const log = ['2021-01-01 00:00:00.1: E 42 tensorflow/compiler/xla/xla_client/xla_util.cc:90] StackTrace:', '2021-01-01 00:00:00.2: E 42 tensorflow/compiler/xla/xla_client/xla_util.cc:90] xla::util::ReportComputationError(tensorflow::Status const&, absl::Span<xla::XlaComputation const* const>)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xla-tpu', catchable: true });
  });

  it("reads TensorFlow's report_tensor_allocations_upon_oom hint when the status line is gone", () => {
    const log = ['\t [[{{node XRTCompile}}]]', 'Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info.', '', ...TB].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', catchable: true });
    expect(root(['Found device 0 with properties: name: GeForce GTX 1080', 'Hint: If you want to see a list of allocated tensors when OOM happens, add report_tensor_allocations_upon_oom to RunOptions for current allocation info.'].join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });
});

describe("Lua's stack traceback under an out-of-memory error", () => {
  it("gives the user's innermost Lua frame, not Torch7's libraries", () => {
    const log = [
      "/usr/local/share/lua/5.1/nn/SpatialConvolution.lua:96: $ Torch: not enough memory: you tried to allocate 2GB. Buy new RAM! at /tmp/TH/THGeneral.c:270",
      'stack traceback:',
      "\t[C]: in function 'SpatialConvolutionMM_updateOutput'",
      "\t/usr/local/share/lua/5.1/nn/SpatialConvolution.lua:96: in function 'updateOutput'",
      "\t...local/share/lua/5.1/nn/Sequential.lua:44: in function 'forward'",
      "\tmodels/train.lua:77: in function 'step'",
      '\tmain.lua:12: in main chunk',
      "\t[C]: in function 'dofile'",
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 2 * GiB, userFrames: [{ file: 'models/train.lua', line: 77 }, { file: 'main.lua', line: 12 }] });
  });
});
