// The message classes blind batch 14 showed the engine did not know: crash reports of shells and
// runtimes, CUDA's error strings without a status name, NVIDIA's tools and driver, CANN/torch_npu codes,
// LLVM's fatal error, Rust panics, the JVM launcher, pip. Each test is a variant written for the class
// (other numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('crash reports of shells', () => {
  it("reads bash's padded job status and zsh's lower-case one as a native crash", () => {
    expect(root('./train.sh: line 42: 90210 Aborted                 (core dumped) python finetune.py --device cuda:1')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('/var/spool/slurm/job77/slurm_script: line 9: 5150 Aborted                 python3 solve.py')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('starting render loop\nFloating point exception (core dumped)')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('zsh: illegal hardware instruction  python bench.py')).toMatchObject({ kind: 'not-oom', catchable: false });
  });

  it("reads LLVM's fatal error, with the platform of the MPSGraph lines above it", () => {
    const log = [
      'loc("mps_matmul"("(mpsFileLoc): /AppleInternal/Library/BuildRoots/0000/MetalPerformanceShadersGraph/Core/Files/MPSGraphUtilities.mm":219:0)): error: incompatible dimensions',
      'LLVM ERROR: Failed to infer result type(s).',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'mps', catchable: false });
  });
});

describe("CUDA's error strings without a status name", () => {
  it('reads a kernel image, PTX or launch failure as not-oom on cuda, with the GPU it names', () => {
    expect(root('12:01:09 Could not start worker on GPU3: NVIDIA RTX 6000 Ada: no kernel image is available for execution on the device')).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 3, catchable: true });
    expect(root('cuModuleLoadDataEx(): the provided PTX was compiled with an unsupported toolchain.')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('ERROR ([5.5]:CopyFromMat():cu-matrix.cc:120) cudaError_t 719 : "unspecified launch failure" returned from \'cudaMemcpy2DAsync(...)\'')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    // A glog FATAL on one aborts: not catchable.
    expect(root('F0101 00:00:01.000002 77 pool.cu:31] Cuda kernel failed. Error: the launch timed out and was terminated')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // Under a terminate it is the what() of that abort.
    expect(root("terminate called after throwing an instance of 'thrust::system::system_error'\n  what():  reduce failed: unspecified launch failure")).toMatchObject({ kind: 'not-oom', catchable: false });
    // A warning that mentions one is not a failure.
    expect(all('warning: kernel retried after unspecified launch failure')).toEqual([]);
  });

  it("reads PyTorch's 'is not compatible with the current PyTorch installation' as not-oom on cuda", () => {
    const log = 'NVIDIA H100 80GB HBM3 with CUDA capability sm_90 is not compatible with the current PyTorch installation.\nThe current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75.';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
  });
});

describe("NVIDIA's tools and driver", () => {
  it('reads nvidia-smi/NVML and NVRTC failures as not-oom on cuda', () => {
    expect(root('$ nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost.  Reboot the system to recover this GPU')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('nvrtc: error: invalid value for --gpu-architecture (-arch)\nkernel compile failed')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
  });

  it("reads NVRM's failed calls and assertions with the GPU number of the NVRM lines above", () => {
    const log = [
      'Mar 03 04:05:06 node2 kernel: NVRM: GPU1 _kgspRpcRecvPoll: GSP RM heartbeat timed out',
      'Mar 03 04:05:06 node2 kernel: NVRM: GPU1 rpcRmApiControl_GSP: GspRmControl failed: hClient=0xc1e00002; status=0x0000000f',
      'Mar 03 04:05:06 node2 kernel: NVRM: nvAssertFailedNoLog: Assertion failed: status == NV_OK @ rs_client.c:790',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 1, catchable: false });
  });

  it("reads cuDNN's frontend error and a program's cuDNN check as not-oom on cuda", () => {
    expect(root('[CUDNN ERROR] at file attention.cpp:88:\n[cudnn_frontend] Error: No valid execution plans built.')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('Ascend codes', () => {
  it("reads CANN's E-codes and torch_npu's ERR codes as not-oom on the npu, with the device", () => {
    const log = [
      '[E OpParamMaker.cpp:290] call aclnnMatmul failed, detail:EZ1001: 2025-01-02-03:04:05.678.901 Tensor self not implemented for DT_BFLOAT16',
      '',
      '[ERROR] 2025-01-02-03:04:05 (PID:777, Device:5, RankID:2) ERR01100 OPS call acl api failed',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'npu', device: 5 });
  });

  it('leaves the ERR suffix to the exception whose message it ends', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/work/train.py", line 12, in <module>',
      '    loss.backward()',
      'RuntimeError: NPU function error: aclrtSynchronizeStream, error code is 507015',
      '[ERROR] 2025-01-02-03:04:05 (PID:9, Device:2, RankID:-1) ERR00100 PTA call acl api failed',
    ].join('\n');
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/work/train.py', line: 12 });
  });
});

describe('other programs failing', () => {
  it('reads a Rust panic in both formats as not-oom', () => {
    expect(root("thread 'tokio-runtime-worker' panicked at 'index out of bounds: the len is 3 but the index is 7', src/sched.rs:210:17\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace")).toMatchObject({ kind: 'not-oom', catchable: false });
    const modern = root("thread 'main' panicked at crates/gpu/src/lib.rs:55:9:\ncalled `Option::unwrap()` on a `None` value\nNvAPI_Initialize failed");
    expect(modern).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(modern?.summary).toMatch(/Rust panic in thread 'main'/);
  });

  it('reads the JVM launcher failing to start as not-oom on the host', () => {
    const log = 'Invalid initial heap size: -Xms64x\nError: Could not create the Java Virtual Machine.\nError: A fatal exception has occurred. Program will exit.';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("reads pip's install failures as not-oom, with the platform the index URL names", () => {
    const log = '$ pip install torch==2.9.0 --index-url https://download.pytorch.org/whl/rocm7.0\nERROR: Could not find a version that satisfies the requirement torch==2.9.0 (from versions: 2.8.0)\nERROR: No matching distribution found for torch==2.9.0';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    expect(root('  Building wheel for flash-attn (setup.py) ... error\n  error: subprocess-exited-with-error')).toMatchObject({ kind: 'not-oom' });
  });

  it("reads the kernel's driver probe failure as not-oom", () => {
    expect(root('[    2.104455] nvidia: probe of 0000:65:00.0 failed with error -1')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('allocation failures no hot anchor reads', () => {
  it("reads GLib's g_malloc failure as a runtime-abort in host memory with the request", () => {
    const log = '(gst-launch-1.0:3141): GLib-ERROR **: 10:11:12.131: ../glib/gmem.c:136: failed to allocate 268435456 bytes\nTrace/breakpoint trap (core dumped)';
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false, requestedBytes: 268435456 });
  });

  it("reads OpenCL's out-of-memory statuses as catchable, on the device the log names or the host", () => {
    expect(root('Using device: AMD Radeon RX 7900 XTX (gfx1100)\nclEnqueueNDRangeKernel returned CL_MEM_OBJECT_ALLOCATION_FAILURE')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', catchable: true });
    expect(root('error: clCreateContext: CL_OUT_OF_HOST_MEMORY')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
  });

  it("reads 'Failed to allocate <size> GPU memory (<size> available)' with the size, the free memory and the GPU prefix", () => {
    const log = 'Detected 2 x NVIDIA A10\nGPU 1: Failed to allocate 22.50 GB GPU memory (1.25 GB available)';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, requestedBytes: Math.round(22.5 * 2 ** 30), freeBytes: Math.round(1.25 * 2 ** 30) });
  });

  it("reads TensorFlow's BFC CHECK after its out-of-memory map as a runtime-abort on cuda", () => {
    const log = [
      '2024-02-02 01:02:03.000001: W tensorflow/core/common_runtime/bfc_allocator.cc:474] ****************************************************************__________',
      '2024-02-02 01:02:03.000100: F tensorflow/core/common_runtime/gpu/gpu_bfc_allocator.cc:160] Check failed: status.ok()',
      'Aborted (core dumped)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
    // A CHECK in the allocator with no out-of-memory report above it stays a not-oom check.
    expect(root('F tensorflow/core/common_runtime/bfc_allocator.cc:300] Check failed: h != kInvalidChunkHandle')?.kind).toBe('not-oom');
  });
});

describe('host kills no hot anchor reads', () => {
  it("reads the OOM killer's 'Tasks state' header with a table of any size as host-oom", () => {
    const log = [
      '[ 9120.000001] Tasks state (memory values in pages):',
      '[ 9120.000002] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name',
      '[ 9120.000003] [   4411]  1000  4411  9876543  3456789 30000000        0             0 java',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });

  it("reads the kubelet's eviction for node memory pressure as host-oom", () => {
    expect(root('Warning  Evicted  3m  kubelet  The node was low on resource: memory. Threshold quantity: 100Mi, available: 52Mi.')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    // Disk pressure is not memory.
    expect(all('Warning  Evicted  kubelet  The node was low on resource: ephemeral-storage.')).toEqual([]);
  });
});

describe("XLA's runtime OOM with a formatted size", () => {
  it("reads 'Out of memory while trying to allocate 512.50MiB.' with the request in bytes", () => {
    const log = 'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 512.50MiB.';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: Math.round(512.5 * 2 ** 20) });
    // The exact count keeps reading as before.
    expect(root('XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 6291456 bytes.')).toMatchObject({ requestedBytes: 6291456 });
  });
});

describe('a traceback pasted from the middle of a frame line', () => {
  it('takes the frame whose \'  File "\' start was cut off', () => {
    const log = [
      'src/pipeline/loader.py", line 88, in read_shard',
      '    arr = np.stack(chunks)',
      'ValueError: need at least one array to stack',
    ].join('\n');
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: 'src/pipeline/loader.py', line: 88, function: 'read_shard' });
  });
});

describe("TensorFlow's CUDA driver allocation failure", () => {
  it('takes the device from the BFC allocator named in the warnings around it', () => {
    const log = [
      '2024-03-03 03:03:03.000001: I tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:753] failed to allocate 7.50G (8053063680 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory',
      '2024-03-03 03:03:03.000002: W tensorflow/tsl/framework/bfc_allocator.cc:296] Allocator (GPU_2_bfc) ran out of memory trying to allocate 7.48GiB with freed_by_count=0. The caller indicates that this is not a failure, but this may mean that there could be performance gains if more memory were available.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 2, requestedBytes: 8053063680 });
    // Logged before it (the allocator's warning came first) is read too.
    expect(root(log.split('\n').reverse().join('\n'))).toMatchObject({ device: 2 });
  });
});

describe("the Ascend device's exception dump", () => {
  it('gives a not-oom verdict the npu platform and the device of its DEVICE[N] header', () => {
    const log = [
      'DEVICE[3] PID[1207]: ',
      'EXCEPTION STREAM:',
      '  Exception info:TGID=88001, model id=65535, stream id=9, stream phase=3',
      '  Message info[0]:RTS_HWTS: Aicore exception, slot_id=7, stream_id=9',
      'Traceback (most recent call last):',
      '  File "/srv/app/infer.py", line 77, in <module>',
      '    out = model.generate(**batch)',
      'RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current working operator name is MatMulV2.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'npu', device: 3 });
  });
});

describe("torch_npu's HCCL failure", () => {
  it('takes the device from the error-code suffix under it', () => {
    const log = [
      'RuntimeError: createHCCLComm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:88 HCCL function error: hcclCommInitRootInfo(numRanks, &rootInfo, rank, &comm), error code is 7',
      '[ERROR] 2025-06-07-08:09:10 (PID:5511, Device:6, RankID:14) ERR02200 DIST call hccl api failed.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'npu', device: 6, rank: 14 });
  });
});

describe("SYCL's device-side assert", () => {
  it('names the xpu platform', () => {
    const log = [
      '/opt/src/kernels/scatter.cpp:41: void scatter_kernel(): global id: [17,0,0], local id: [1,0,0] Assertion `idx < n` failed.',
      'Aborted (core dumped)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: false });
  });
});

describe("Ray's header of a remote task's traceback", () => {
  it('stands in for the traceback header of the frames under a failure', () => {
    const log = [
      '(Trainer pid=4242) RuntimeError: initComm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:90 HCCL function error: hcclCommInitRootInfo(numRanks, &rootInfo, rank, &comm), error code is 5',
      '(Trainer pid=4242) [ERROR] 2025-07-08-09:10:11 (PID:9001, Device:4, RankID:4) ERR02200 DIST call hccl api failed.',
      "(Trainer pid=4242) 2025-07-08 09:10:11,000\tERROR worker.py:420 -- Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::Learner.setup() (pid=9001, ip=10.0.0.9, actor_id=ab12)",
      '(Trainer pid=4242)   File "/home/me/rl/learner.py", line 57, in setup',
      '(Trainer pid=4242)     self.group = init_group()',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'npu', device: 4, rank: 4 });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/home/me/rl/learner.py', line: 57 });
  });
});
