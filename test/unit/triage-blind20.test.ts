// The message classes blind batch 20 showed the engine did not know: the userspace OOM killers (systemd-oomd, oomd)
// and the tools that report a cgroup OOM kill (isolate's meta file, the oomkill tracers); TPU named inside the
// identifiers of the stacks that drive it; a program's CUDA check printing the runtime's non-memory status string, and
// the gpuAssert idiom; Metal's failed assertion pasted with a straight quote; the kernel's UBSAN report. Each test is a variant
// written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('userspace OOM killers and cgroup OOM reports', () => {
  it('reads systemd-oomd choosing or killing a cgroup as a host OOM', () => {
    const candidates = [
      'Feb 11 09:14:02 ws systemd-oomd[611]: Considered 18 cgroups for killing, top candidates were:',
      'Feb 11 09:14:02 ws systemd-oomd[611]:         Path: /user.slice/user-1001.slice/user@1001.service/app.slice/app-code-4120.scope',
      'Feb 11 09:14:02 ws systemd-oomd[611]:                 Memory Pressure Limit: 0.00%',
      'Feb 11 09:14:02 ws systemd-oomd[611]:                 Current Memory Usage: 11.2G',
    ].join('\n');
    expect(root(candidates)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('systemd-oomd[702]: Killed /user.slice/user-1000.slice/user@1000.service/app.slice/jupyter.service due to memory pressure for /user.slice/user-1000.slice/user@1000.service being 71.02% > 50.00% for > 20s with reclaim activity')).toMatchObject({ kind: 'host-oom' });
    expect(root('systemd-oomd[702]: Marked /system.slice/trainer.service for killing due to memory used (15820009472) / total (16411234304) and swap used (8100012032) / total (8589930496) being more than 90.00%')).toMatchObject({ kind: 'host-oom' });
    expect(root('Jan 02 10:00:01 box systemd[1402]: app-python-77.scope: systemd-oomd killed 12 process(es) in this unit.')).toMatchObject({ kind: 'host-oom' });
  });

  it("reads oomd's kill plugins picking and killing a cgroup as a host OOM", () => {
    const log = [
      'oomd[512]: [../src/oomd/engine/Ruleset.cpp:211] Running Detector=pressure_above',
      'oomd[512]: [../src/oomd/plugins/KillSwapUsage-inl.h:95] Picked "system.slice/batch.service" (3112MB) based on swap usage at 71.3%',
      'oomd[512]: [../src/oomd/plugins/BaseKillPlugin.cpp:141] Killed 3: 9001(python3) 9002(python3) 9040(sh)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root(log)?.requestedBytes).toBeUndefined();
  });

  it("reads isolate's meta file reporting the cgroup OOM killer", () => {
    const meta = ['time:0.412', 'time-wall:0.450', 'max-rss:262144', 'cg-mem:262144', 'cg-oom-killed:1', 'exitsig:9', 'status:SG', 'message:Caught fatal signal 9'].join('\n');
    expect(root(meta)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    // The key with 0 is not a kill.
    expect(root('cg-oom-killed:0')?.kind).not.toBe('host-oom');
  });

  it("reads the bcc and bpftrace oomkill tools' line as a host OOM", () => {
    expect(root('09:02:11 Triggered by PID 3310 ("java"), OOM kill of PID 2871 ("python3"), 4096000 pages, loadavg: 3.12 2.40 1.10 5/812 3311')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(root('21:10:45 Triggered by PID 55 ("stress-ng"), CGROUP 9012 ("unified:/limited"), OOM kill of PID 55 ("stress-ng"), 262144 pages, loadavg: 0.10 0.08 0.02 2/301 60')?.requestedBytes).toBeUndefined();
  });
});

describe('platform words', () => {
  it('takes xla-tpu from TPU inside an identifier (TpuPlatform, TPU_SYSTEM, TPUExecutor, tpu_version, libtpu, xrt_*)', () => {
    expect(root(['F0412 08:01:22.100000 4410 statusor.cc:33] Attempting to fetch value instead of handling error NOT_FOUND: TpuPlatform could not be loaded.', 'Aborted (core dumped)'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'xla-tpu' });
    expect(root("tensorflow.python.framework.errors_impl.NotFoundError: No registered kernels for '/job:worker/replica:0/task:0/device:TPU_SYSTEM:0' [Op:ConfigureDistributedTPU]")).toMatchObject({ kind: 'not-oom', platform: 'xla-tpu' });
    expect(root('AttributeError: type object TPUModelRunner has no attribute execute_model_async')).toMatchObject({ platform: 'xla-tpu' });
    expect(root('ValueError: unknown tpu_type=v6e-256 for this slice')).toMatchObject({ platform: 'xla-tpu' });
    expect(root(['I0101 00:00:00.1 77 pjrt_api.cc:79] PJRT_Api is set for device type tpu', 'F0101 00:00:01.2 77 shape_util.cc:512] Check failed: index < ShapeSize(shape)'].join('\n'))).toMatchObject({ platform: 'xla-tpu' });
    expect(root('RuntimeError: /src/xla_client/xrt_local_service.cc:57 : Check failed: server_ != nullptr')).toMatchObject({ platform: 'xla-tpu' });
  });

  it('does not take xla-tpu from tpu inside a word', () => {
    expect(root('ValueError: output_shape and input_tpus_hint differ')?.platform).toBe('cpu');
    expect(root('KeyError: outputs')?.platform).toBe('cpu');
  });
});

describe("CUDA status strings in a program's own check", () => {
  it('reads a CUDA check with a non-memory status string as a not-oom on CUDA, catchable when the error was returned', () => {
    expect(root('[E 2023-04-01 10:00:00][vmm_pool.cc:212] cuMemCreate failed: operation not supported')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    expect(root('render: cuda error: invalid configuration argument')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    // Thrown into std::terminate (what()), or followed by an abort, nothing caught it.
    expect(root("  what():  [TRT][ERROR] CUDA runtime error: invalid device ordinal /src/plugin/common.h:88")).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root(['Cuda failure: invalid resource handle at line 42 in file voxelize.cpp error status: 400', 'Aborted (core dumped)'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // The CUDA samples' and ggml's CUDA_CHECK exits after it prints.
    expect(root('CUDA error 1 at /src/ggml-cuda.cu:1201: invalid argument')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // An EINVAL from the OS is not CUDA's.
    expect(root('OSError: [Errno 22] Invalid argument: \'/data/x\'')?.platform).toBe('cpu');
  });

  it("reads the gpuAssert idiom: its out-of-memory status as CUDA's runtime-abort, any other as a not-oom", () => {
    expect(root('GPUassert: out of memory src/ops/voxel_pool.cu 57')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
    expect(root('GPUassert: an illegal memory access was encountered kernels/scan.cu 311')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('GPUassert: too many resources requested for launch /home/u/nms.cu 140')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('native reports the tail pass reads', () => {
  it("reads Metal's failed assertion pasted with a straight quote for its backtick like the backtick form", () => {
    const log = "/Library/Caches/com.apple.xbs/Sources/MetalPerformanceShaders/MPSCore/Types/MPSNDArray.mm:682: failed assertion '[MPSNDArray initWithDevice:descriptor:isTextureBacked:] Error: NDArray dimension length > INT_MAX'";
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'mps', catchable: false });
    expect(root("-[MTLDebugDevice newBufferWithLength:options:]:670: failed assertion 'Buffer Validation Failed to allocate private MTLBuffer for size 8589934592'")).toMatchObject({ kind: 'runtime-abort', platform: 'mps', requestedBytes: 8589934592 });
  });

  it("reads the kernel's UBSAN report as a not-oom, on the platform of the driver its path names", () => {
    const log = [
      '[ 12.402911] ================================================================================',
      '[ 12.402915] UBSAN: array-index-out-of-bounds in drivers/gpu/drm/amd/amdgpu/../display/dc/dml/dcn31/display_mode_vba_31.c:3912:4',
      '[ 12.402920] index 8 is out of range for type \'double [8]\'',
      '[ 12.402925] Call Trace:',
      '[ 12.402926]  <TASK>',
      '[ 12.402931]  dump_stack_lvl+0x48/0x70',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('[ 3.1] UBSAN: shift-out-of-bounds in /var/lib/dkms/nvidia/550.54/build/nvidia/nv.c:812:19')).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('[ 3.1] UBSAN: invalid-load in fs/ext4/inode.c:101:7')).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
  });
});

describe("TorchScript's missing operator schema and Gaudi's words", () => {
  it("takes gaudi from the Habana bridge's fatal-signal handler", () => {
    const log = ['RuntimeError: NCCL communicator was aborted', 'Internal Error: Received signal - Segmentation fault', 'Traceback (most recent call last):', '  File "train.py", line 40, in <module>', '    trainer.fit(model)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'gaudi' });
  });

  it('reads it as a catchable not-oom, on Gaudi when the node names hpu ops or devices', () => {
    const log = [
      'Schema not found for node. File a bug report.',
      'Node: %9 : Half(8, 128, strides=[128, 1], device=hpu:0) = hpu::cast_i8[deterministic=0](%x)',
      '',
      'Input types:Float(8, 128, strides=[128, 1], device=hpu:0)',
      'candidates were:',
      '  hpu::cast_i8(Tensor self) -> Tensor',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'gaudi', catchable: true });
    const custom = ["terminate called after throwing an instance of 'torch::jit::ErrorReport'", 'what():', 'Schema not found for node. File a bug report.', 'Node: %12 : Tensor = my_ops::roi_align(%0, %7)'].join('\n');
    expect(root(custom)).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
  });
});

describe('error reports outside ML', () => {
  it("reads React's overlay for an unhandled rejection as a catchable not-oom with its frames", () => {
    const log = ["Unhandled Rejection (RangeError): Invalid time value", 'formatDate', 'src/utils/dates.js:41', 'loadReport', 'src/pages/Report.tsx:118:7'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: 'src/utils/dates.js', line: 41, function: 'formatDate' });
  });

  it("reads java.util.logging's SEVERE record as a catchable not-oom", () => {
    const log = ['Mar 02, 2024 4:11:09 PM com.example.sync.Uploader push', 'SEVERE: Upload of batch 17 rejected by server (HTTP 409)'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(all('INFO: SEVERE: is only a word here')).toEqual([]);
  });

  it("reads a subprocess's negative returncode as the signal that killed the child", () => {
    expect(root("CompletedProcess(args=['./solver', 'in.txt'], returncode=-6, stdout=b'', stderr=b'')")).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root('{"check": "disk", "returncode": -8, "stderr": ""}')?.summary).toMatch(/signal 8 \(SIGFPE\)/);
    // A positive code is not a signal, and SIGKILL is left to the host-kill signatures.
    expect(root('{"returncode": 2}')).toBeUndefined();
  });

  it("reads SPVM's exception and its stack as a catchable not-oom with SPVM frames", () => {
    const log = ['Invalid index 12 for the list of length 4.', '  MyApp::Table->row at /home/u/myapp/lib/SPVM/MyApp/Table.spvm line 88', '  MyApp->main at /home/u/myapp/lib/SPVM/MyApp.spvm line 12'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/home/u/myapp/lib/SPVM/MyApp/Table.spvm', line: 88, function: 'MyApp::Table->row' });
  });
});

describe('devices', () => {
  it("takes the device from fairseq's warning under the out-of-memory error it caught", () => {
    const log = [
      'THCudaCheck FAIL file=/opt/pytorch/aten/src/THC/THCCachingAllocator.cpp line=510 error=2 : out of memory',
      '| WARNING: ran out of memory on GPU #5, skipping batch',
      '| epoch 003:  41%|████      | 1200/2900 [10:02<14:10, loss=4.102]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 5 });
  });
});

describe('checks raised as exceptions', () => {
  it('reads a failed check that reached Python as an exception message as catchable, a glog CHECK not', () => {
    expect(root('RuntimeError: /pytorch/xla/torch_xla/csrc/runtime/pjrt_computation_client.cc:611 : Check failed: devices.size() == 1 (2 vs. 1)')).toMatchObject({ kind: 'not-oom', platform: 'xla-tpu', catchable: true });
    expect(root('F0315 12:00:01.000000 4411 tensor.cc:77] Check failed: dims() == 2 (3 vs. 2)')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe('launcher exceptions', () => {
  it("reads subprocess's CalledProcessError about a child as a launcher's report, not catchable", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/opt/conda/lib/python3.9/site-packages/torch/distributed/launch.py", line 253, in main',
      '    raise subprocess.CalledProcessError(returncode=process.returncode,',
      "subprocess.CalledProcessError: Command '['/opt/conda/bin/python', '-u', 'train_net.py', '--local_rank=1']' returned non-zero exit status 1.",
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});
