// The message classes blind batch 22 showed the engine did not know: OpenCL's out-of-memory statuses as the wrappers'
// error strings print them (boost::compute, clErrorString); a ROCm library's allocation status inside PyTorch's ROCm
// "CUDA error: …". Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("OpenCL's out-of-memory statuses as error strings", () => {
  it('reads an uncaught boost::compute error for a device buffer as a runtime-abort', () => {
    const log = [
      '[LightGBM] [Info] Using GPU Device: gfx906, Vendor: Advanced Micro Devices, Inc.',
      '[LightGBM] [Info] Compiling OpenCL Kernel with 64 bins...',
      "terminate called after throwing an instance of 'boost::wrapexcept<boost::compute::opencl_error>'",
      '  what():  Memory Object Allocation Failure',
      'Aborted (core dumped)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });

  it("reads the host status raised to Python as a catchable out-of-memory in host memory", () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/work/fit_gbm.py", line 31, in <module>',
      '    model = lgb.train(params, dtrain, num_boost_round=500)',
      '  File "/usr/lib/python3/site-packages/lightgbm/basic.py", line 110, in _safe_call',
      '    raise LightGBMError(_LIB.LGBM_GetLastError().decode("utf-8"))',
      'lightgbm.basic.LightGBMError: Out of Host Memory',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    // The SDK samples' clErrorString spelling.
    expect(root('clCreateBuffer(d_grid) failed: Memory object allocation failure')?.kind).toBe('catchable-oom');
  });
});

describe("a ROCm library's allocation status inside PyTorch's 'CUDA error'", () => {
  it('reads HIPBLAS_STATUS_ALLOC_FAILED and its kin as a catchable out-of-memory on rocm', () => {
    const log = [
      'Traceback (most recent call last):',
      '  File "/home/u/bench/mm.py", line 22, in <module>',
      '    out = torch.bmm(x, w)',
      'RuntimeError: CUDA error: HIPBLAS_STATUS_ALLOC_FAILED when calling `hipblasCreate(handle)`',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', catchable: true });
    expect(root('RuntimeError: CUDA error: rocblas_status_memory_error when calling `rocblas_create_handle(&handle)`')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
    // Any other hipBLAS status is still not an out-of-memory.
    expect(root('RuntimeError: CUDA error: HIPBLAS_STATUS_NOT_SUPPORTED when calling `hipblasGemmEx( handle, opa, opb, m, n, k)`')?.kind).toBe('not-oom');
  });
});

describe("NCCL's failures as nccl-tests and ProcessGroupNCCL's watchdog report them", () => {
  it("reads the first nccl-tests releases' NCCLCHECK line (no 'Test') as a not-oom that ends the test", () => {
    const log = [
      '$ ./build/reduce_scatter_perf -b 1M -e 64M -f 2 -g 2',
      '# Using devices',
      "NCCL failure common.cu:412 'unhandled system error'.",
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    // ROCm named around it says RCCL's.
    expect(root("$ module load rocm/6.1.2 && ./all_gather_perf -g 4\nNCCL failure common.cu:97 'invalid usage'")).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });

  it("reads the watchdog's async exception as a not-oom on the rank it names", () => {
    const log = [
      '[rank5]:[I1104 09:12:41.771020 33120 ProcessGroupNCCL.cpp:1904] [PG ID 0 PG GUID 0(default_pg) Rank 5] Heartbeat monitor started',
      'I1104 09:40:02.018223 33181 ProcessGroupNCCL.cpp:620] [Rank 5] found async exception when checking for NCCL errors: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5',
      'Exception raised from checkForNCCLErrorsInternal at /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027 (most recent call first):',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false, rank: 5 });
  });
});

describe("runc's container init killed for memory", () => {
  it('reads the kubelet\'s and containerd\'s report of it as a host-oom', () => {
    const log = [
      '$ kubectl describe pod ingest-worker-7d9f8b6c4-x2kqz',
      'Events:',
      '  Type     Reason     Age               From     Message',
      '  Warning  Failed     12s (x3 over 40s) kubelet  Error: failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: container init was OOM-killed (memory limit too low?): unknown',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('    State:          Waiting\n      Reason:       RunContainerError\n      Message:      container init was OOM-killed (memory limit too low?)')?.kind).toBe('host-oom');
  });
});

describe("tcmalloc's failed large allocation and ptxas out of host memory", () => {
  it('reads a large alloc that returned nil as host memory with the request, aborting when an uncaught failure follows', () => {
    const log = [
      '>>> x = np.zeros((1 << 22, 1 << 22), dtype=np.float32)',
      'tcmalloc: large alloc 70368744177664 bytes == (nil) @  0x7f3a1c2b9680 0x7f3a1c2da824 0x7f39ee0b12da',
      '*** SIGABRT received at time=1701353221 on cpu 7 ***',
      'PC: @     0x7f3a1c09e00b  (unknown)  raise',
      'Aborted (core dumped)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false, requestedBytes: 70368744177664 });
    // A pointer other than nil is only tcmalloc's report of a large allocation that succeeded.
    expect(root('tcmalloc: large alloc 2147483648 bytes == 0x55d0c4a2e000 @  0x7f3a1c2b9680 0x7f3a1c2da824')).toBeUndefined();
  });

  it("reads ptxas's fatal allocation failure as a catchable out-of-memory in host memory", () => {
    const log = [
      'nvcc -O3 -arch=sm_86 -c render_kernels.cu -o render_kernels.o',
      'ptxas fatal   : Memory allocation failure',
      'make: *** [Makefile:31: render_kernels.o] Error 255',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
  });
});

describe("TensorFlow's StreamExecutor failing a device allocation, its status cut off", () => {
  it("reads the bare 'failed to allocate' line with the device banner's total and free memory", () => {
    const log = [
      'name: GeForce GTX 1070',
      'major: 6 minor: 1 memoryClockRate (GHz) 1.7845',
      "pciBusID 0000:01:00.0",
      'Total memory: 7.92GiB',
      'Free memory: 7.80GiB',
      'failed to allocate 7.02G',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, requestedBytes: 7537667604, deviceTotalBytes: 8504035246, freeBytes: 8375186227 });
    // With the bytes printed, they are the request.
    expect(root('2017-06-02 10:11:12.000001: E tensorflow/stream_executor/cuda/cuda_driver.cc:893] failed to allocate 3.50G (3758096384 bytes) from device')).toMatchObject({ kind: 'catchable-oom', requestedBytes: 3758096384 });
  });
});

describe("oneDNN's errors and PyTorch's own names for the XPU and MIGraphX", () => {
  it("reads oneDNN's 'could not create' errors as a catchable not-oom, xpu where the script names the device", () => {
    const log = [
      "dev = 'xpu'",
      'conv = torch.nn.Conv2d(3, 16, 3).to("xpu:0")',
      'Traceback (most recent call last):',
      '  File "/home/u/probe_conv.py", line 14, in <module>',
      '    out = conv(img)',
      'RuntimeError: could not create a primitive descriptor for a convolution forward propagation primitive',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'xpu', catchable: true });
    expect(root('print(torch.xpu.get_device_name(0))\nRuntimeError: could not create an engine')).toMatchObject({ kind: 'not-oom', platform: 'xpu' });
  });

  it("reads MIGraphX's Python module and source tree as rocm", () => {
    const log = [
      'prog = migraphx.parse_onnx("bert.onnx")',
      'RuntimeError: /src/AMDMIGraphX/src/targets/gpu/compile_ops.cpp:41: compile: Unknown operator',
    ].join('\n');
    expect(root(log)?.platform).toBe('rocm');
  });
});

describe("CTest's summary of failed tests", () => {
  it('reads the summary and the list of failed tests as a not-oom the run ended with', () => {
    const log = [
      '      Start 12: conv2d_fp16_nhwc',
      '12/14 Test #12: conv2d_fp16_nhwc .................***Failed    3.02 sec',
      '',
      '86% tests passed, 2 tests failed out of 14',
      '',
      'Total Test time (real) =  41.77 sec',
      '',
      'The following tests FAILED:',
      '\t  7 - gemm_bf16_tn (Failed)',
      '\t 12 - conv2d_fp16_nhwc (Failed)',
      'Errors while running CTest',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: false });
    // All passing is not a failure.
    expect(root('100% tests passed, 0 tests failed out of 14\n\nTotal Test time (real) =  40.02 sec')).toBeUndefined();
  });
});
