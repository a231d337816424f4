// The message classes blind batch 16 showed the engine did not know: host kills told by a compiler
// driver, a parent's exit status 137 in words no hot anchor reads, Slurm's cgroup plugin, the kernel OOM
// killer's own stack frames, the Go runtime's fatal out-of-memory; native crashes and tool failures told by
// libc++abi, systemd-coredump, the macOS kernel, Open MPI, compute-sanitizer, HIP and Go's os/exec. Each test is a variant written for the
// class (other numbers, names and prefixes), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('host kills and host OOMs no hot anchor read', () => {
  it("reads GCC's driver reporting a compiler pass killed by SIGKILL as a host kill", () => {
    const log = [
      '[ 42%] Building CXX object src/CMakeFiles/engine.dir/parser.cpp.o',
      'aarch64-linux-gnu-g++: fatal error: Killed signal terminated program cc1plus',
      'compilation terminated.',
      'make[2]: *** [src/CMakeFiles/engine.dir/build.make:76: src/CMakeFiles/engine.dir/parser.cpp.o] Error 1',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('gcc: fatal error: Killed signal terminated program cc1')?.summary).toContain('cc1');
    // Another signal is no memory kill.
    expect(root('g++: fatal error: Segmentation fault signal terminated program cc1plus')?.kind).not.toBe('host-oom');
  });

  it("reads a parent's exit status 137 in its own words as a host kill, and other statuses not", () => {
    expect(root("[a1/b2c3d4] NOTE: Process `ALIGN:minimap2 (s7)` terminated with an error exit status (137) -- Execution is retried (2)")).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(root("PostStart hook for Container \"api\" in Pod \"web-7\" failed - error: command '/bin/warm' exited with 137: , message: \"\"")).toMatchObject({ kind: 'host-oom' });
    expect(root('job 88 result: [code=500, msg=command exit value(137) is failed]')).toMatchObject({ kind: 'host-oom' });
    expect(root("Process `QC:fastqc (s2)` terminated with an error exit status (1)")?.kind).not.toBe('host-oom');
    expect(root("command '/bin/warm' exited with 1370")?.kind).not.toBe('host-oom');
  });

  it("reads Slurm's oom-kill events in a step's cgroup as a host kill", () => {
    expect(root('srun: error: node017: task 3: Killed\nslurmstepd: error: Detected 5 oom-kill event(s) in StepId=9911.0. Some of your processes may have been killed.')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
    expect(root('slurmstepd: error: Detected 1 oom_kill event in StepId=12.batch.')).toMatchObject({ kind: 'host-oom' });
  });

  it("reads the kernel OOM killer's stack frames as a host kill", () => {
    const log = [
      '[88123.441] Call Trace:',
      '[88123.441]  dump_stack_lvl+0x48/0x70',
      '[88123.441]  dump_header+0x4a/0x240',
      '[88123.441]  oom_kill_process+0x108/0x1c0',
      '[88123.441]  out_of_memory+0x246/0x590',
      '[88123.441]  __alloc_pages_slowpath.constprop.0+0xa1e/0xe40',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    // A function of that name without the kernel's +offset/size is not a frame.
    expect(all('calling out_of_memory handler in tests')).toEqual([]);
  });

  it("reads the Go runtime's 'out of memory: cannot allocate' with the request and the heap in use", () => {
    const log = 'runtime: out of memory: cannot allocate 8388608-byte block (3221225472 in use)\nfatal error: out of memory\n\nruntime stack:\nruntime.throw({0x9a1c2e?, 0x0?})';
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false, requestedBytes: 8388608, processInUseBytes: 3221225472 });
  });
});

describe('native crashes and tool failures the tail pass reads', () => {
  it("reads libc++abi's terminate message as the uncaught C++ exception that aborted the process", () => {
    const log = "loading weights\nlibc++abi: terminating due to uncaught exception of type std::invalid_argument: [reshape] Cannot reshape array of size 12 into shape (5).\nzsh: abort      python gen.py";
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
  });

  it("reads MLX's Metal command buffer failing with Insufficient Memory as an MPS OOM, an abort when uncaught", () => {
    expect(root('step 40/200\nlibc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command buffer execution failed: Insufficient Memory')).toMatchObject({ kind: 'runtime-abort', platform: 'mps', catchable: false });
    expect(root('RuntimeError: [METAL] Command buffer execution failed: Insufficient Memory')).toMatchObject({ kind: 'catchable-oom', platform: 'mps' });
  });

  it("reads HIP's 'no ROCm-capable device is detected' as not-oom on rocm", () => {
    expect(root('rocminfo ok\nhipErrorNoDevice: no ROCm-capable device is detected (in main.cpp:31)')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });

  it("reads systemd-coredump's report of a crashed process, and not a SIGKILL", () => {
    expect(root('Jan 02 03:04:05 box systemd-coredump[2211]: Process 2190 (blender) of user 1001 terminated abnormally with signal 11/SEGV, processing...')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(all('Jan 02 03:04:05 box systemd-coredump[2211]: Process 2190 (blender) of user 1001 terminated abnormally with signal 9/KILL, processing...')).toEqual([]);
    expect(root('systemd-coredump[88]: PID 61 (llama-server) crashed with signal 6/ABRT, processing coredump.')).toMatchObject({ kind: 'not-oom', catchable: false });
  });

  it("reads the macOS kernel's panic report, on mps when it names the GPU driver", () => {
    expect(root('panic(cpu 2 caller 0xfffffe0021b3c4d0): "AGX: GPU fault, unrecoverable" @AGXFirmwareKextRTBuddy.cpp:112\nDebugger message: panic')).toMatchObject({ kind: 'not-oom', platform: 'mps', catchable: false });
  });

  it("reads the backtrace Open MPI's signal handler prints as a native crash", () => {
    const log = [
      '[node07:22841] [ 0] /lib64/libpthread.so.0(+0x12cf0)[0x2b1c4e2a1cf0]',
      '[node07:22841] [ 1] /opt/ompi/lib/libopen-pal.so.40(mca_btl_vader_poll_handle_frag+0x4b)[0x2b1c4f00a11b]',
      '[node07:22841] [ 2] ./solver(+0x3f21)[0x55d0a2c01f21]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("reads compute-sanitizer's memcheck report as not-oom on cuda", () => {
    const log = '========= COMPUTE-SANITIZER\n========= Invalid __global__ write of size 8 bytes\n=========     at scatter_add(float *, const int *, int)+0x2b0 in kernels.cu:57\n=========     by thread (31,0,0) in block (9,0,0)';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
  });

  it("reads Go's exec 'exit status N' as a launcher report, and 137 as a host kill", () => {
    expect(root('level=ERROR source=server.go:88 msg="runner failed" err="exit status 2"')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('level=ERROR msg="runner failed" err="exit status 137"')).toMatchObject({ kind: 'host-oom' });
  });
});

describe('platform words and sizes from runtime logs', () => {
  it("takes rocm from ROCm CLR's log lines and the sizes from hip_memory.cpp's allocation summary", () => {
    const log = [
      ':3:hip_memory.cpp           :612 : 4400123456 us: 9120 : [tid:0x7f00c1aff640] hipMalloc ( 0x7ffd1c2e0a48, 1073741824 )',
      ':1:memory.cpp               :347 : 4400123501 us: 9120 : [tid:0x7f00c1aff640] Video memory allocation failed!',
      ':1:memory.cpp               :308 : 4400123509 us: 9120 : [tid:0x7f00c1aff640] Can\'t allocate memory size - 0x40000000 bytes!',
      ':1:hip_memory.cpp           :303 : 4400123520 us: 9120 : [tid:0x7f00c1aff640] Allocation failed : Device memory : required :1073741824 | free :536870912 | total :8573157376 ',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', requestedBytes: 1073741824, freeBytes: 536870912, deviceTotalBytes: 8573157376 });
  });

  it("takes cuda from a native crash inside NVIDIA's driver library (libcuda.so)", () => {
    const log = 'Thread 7 "python3" received signal SIGSEGV, Segmentation fault.\n[Switching to Thread 0x7fff2d1fe700 (LWP 5521)]\n0x00007fffe1c2a3b0 in ?? () from /lib/x86_64-linux-gnu/libcuda.so.1';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe("Intel's XPU named by a wheel's version or a device's name", () => {
  it('takes xpu from a PyTorch +xpu version over the CUDA words of collect_env', () => {
    const log = 'Traceback (most recent call last):\n  File "/home/u/bench.py", line 14, in <module>\n    y = conv(x)\nRuntimeError: could not create a descriptor for a convolution forward propagation primitive\n\nPyTorch version: 2.7.1+xpu\nIs CUDA available: False\nCUDA runtime version: No CUDA';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xpu' });
  });

  it("takes xpu from an Intel Arc or Data Center GPU's name (sycl-ls, clinfo)", () => {
    const log = 'RuntimeError: could not create an engine\n[opencl:gpu:0] Intel(R) OpenCL Graphics, Intel(R) Data Center GPU Max 1100 OpenCL 3.0 NEO';
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xpu' });
    expect(root('RuntimeError: could not create a primitive\n[opencl:gpu:1] Intel(R) OpenCL Graphics, Intel(R) Arc(TM) A380 Graphics OpenCL 3.0 NEO')).toMatchObject({ platform: 'xpu' });
  });
});

describe('a message under its header, a Caffe2 operator\'s device', () => {
  it("reads 'out of memory' on the line under an 'Exception:' header as that exception's message", () => {
    const log = 'prog: src/Backend/Device.hs:211 (unhandled): CUDA Exception:\nout of memory\nCallStack (from HasCallStack):\n  error, called at src/Backend/Device.hs:211:5';
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    // Alone, mid-log, the words are no failure; among the log's last lines they are how it ended (statedFailure.ts).
    expect(all(`status:\nout of memory\n${Array.from({ length: 30 }, (_, i) => `step ${i}`).join('\n')}`)).toEqual([]);
    expect(root('status:\nout of memory')?.kind).toBe('catchable-oom');
  });

  it("takes the device of a failed Caffe2 operator from its OperatorDef's device_option", () => {
    const log = "E0301 08:00:01.000001  4410 net_dag.cc:195] Exception from operator chain starting at '' (type 'Conv'): caffe2::EnforceNotMet: [enforce fail at context_gpu.h:156] . Encountered CUDA error: an illegal instruction was encountered Error from operator:\ninput: \"gpu_5/data\" input: \"gpu_5/conv1_w\" output: \"gpu_5/conv1\" name: \"\" type: \"Conv\" device_option { device_type: 1 cuda_gpu_id: 5 }";
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', device: 5 });
  });
});

describe("MLX's per-buffer limit", () => {
  it('reads an array over Metal\'s largest buffer as a refused request on mps: caught, or an abort under terminate', () => {
    expect(root('ValueError: [metal::malloc] Attempting to allocate 34359738368 bytes which is greater than the maximum allowed buffer size of 21474836480 bytes.')).toMatchObject({
      kind: 'catchable-oom', platform: 'mps', catchable: true, requestedBytes: 34359738368, allowedBytes: 21474836480,
    });
    expect(root('libc++abi: terminating due to uncaught exception of type std::runtime_error: Attempting to allocate 9663676416 bytes which is greater than the maximum allowed buffer size of 8589934592 bytes.')).toMatchObject({
      kind: 'runtime-abort', platform: 'mps', catchable: false, requestedBytes: 9663676416, allowedBytes: 8589934592,
    });
  });
});

describe('frames of a compiled Cython module', () => {
  it("are library frames when the qualified function starts with the .pyx path's module", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/ana/exp/run_bench.py", line 57, in <module>',
      '    stream.sync()',
      '  File "cuda/bindings/_lib/utils.pyx", line 88, in cuda.bindings._lib.utils.check',
      '  File "rapids/io/_reader.pyx", line 140, in rapids.io._reader.Reader.read_all',
      'RuntimeError: cudaErrorLaunchFailure: unspecified launch failure',
    ].join('\n');
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/home/ana/exp/run_bench.py', line: 57 });
    // A .pyx of the user's own project, whose function is not qualified by its path, stays the user's.
    const own = 'Traceback (most recent call last):\n  File "/home/ana/exp/run.py", line 3, in <module>\n    fast()\n  File "kernels.pyx", line 12, in fast\nRuntimeError: bad shape';
    expect(root(own)?.userFrames?.[0]).toMatchObject({ file: 'kernels.pyx', line: 12 });
  });
});

describe("ComfyUI's error report", () => {
  it('takes the user frame from its Stack Trace below the out-of-memory tip', () => {
    const log = [
      '# ComfyUI Error Report',
      '## Error Details',
      '- **Node ID:** 7',
      '- **Node Type:** VAEDecode',
      '- **Exception Type:** torch.OutOfMemoryError',
      '- **Exception Message:** Allocation on device ',
      'This error means you ran out of memory on your GPU.',
      '',
      'TIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.',
      '## Stack Trace',
      '',
      '  File "/srv/ComfyUI/execution.py", line 496, in execute',
      '    output_data, output_ui, has_subgraph = get_output_data(obj, input_data_all)',
      '  File "/srv/ComfyUI/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1751, in _call_impl',
      '    return forward_call(*args, **kwargs)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: '/srv/ComfyUI/execution.py', line: 496 });
  });
});

describe("a server's dump of every setting's name", () => {
  it("names no platform (ollama's 'server config' env map)", () => {
    const log = [
      'Error: 500 Internal Server Error: llama runner process has terminated: exit status 2',
      'Mar 03 09:00:01 host ollama[1201]: time=2026-03-03T09:00:01.000Z level=INFO source=routes.go:1500 msg="server config" env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: HSA_OVERRIDE_GFX_VERSION: OLLAMA_DEBUG:false]"',
      'Mar 03 09:00:01 host ollama[1201]: time=2026-03-03T09:00:01.010Z level=INFO source=images.go:470 msg="total blobs: 12"',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu' });
  });
});
