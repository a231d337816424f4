// The message classes blind batch 21 showed the engine did not know: ROCm's math and compiler libraries (rocBLAS and its
// Tensile and hipBLASLt paths, rocBLAS/hipBLAS/MIOpen/HIPRTC statuses, MIOpen's errors, MIGraphX's rocBLAS call) as
// not-oom on rocm; the loader not finding a library; zsh's name for SIGABRT. Each test is a variant written for the
// class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe("ROCm's math and compiler libraries", () => {
  it("reads rocBLAS not finding its Tensile library as a not-oom on rocm that aborts", () => {
    const log = [
      'Loading checkpoint shards: 100%|██████████| 2/2 [00:03<00:00,  1.61s/it]',
      'rocBLAS error: Cannot read /opt/venv/lib/python3.10/site-packages/torch/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch : gfx1036',
      ' List of available TensileLibrary Files : ',
      '"/opt/venv/lib/python3.10/site-packages/torch/lib/rocblas/library/TensileLibrary_lazy_gfx1030.dat"',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('rocBLAS error: Could not initialize Tensile host: No devices found\nAborted (core dumped)')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
  });

  it("reads rocBLAS's Tensile exception and the hipBLASLt path's messages as catchable not-oom on rocm", () => {
    expect(root('rocBLAS error: Tensile solution found, but exception thrown for { a_type: "bf16_r", b_type: "bf16_r", c_type: "bf16_r", M: 512, N: 128, K: 4096 }  Kernel Cijk_Alik_Bljk_BBS_BH not found in any loaded module.')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    const lt = [
      'rocBLAS error: No hipBLASLt solution found',
      'This message will be only be displayed once, unless the ROCBLAS_VERBOSE_HIPBLASLT_ERROR environment variable is set.',
      '',
      'rocBLAS warning: hipBlasLT failed, falling back to tensile.',
    ].join('\n');
    expect(root(lt)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    expect(root('hipsparselt_error: No Tensile solution found, but exception thrown for sparse problem (m=64, n=64)')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
  });

  it('reads a library status returned by name as a not-oom on rocm, but not its allocation statuses', () => {
    expect(root('/src/AMDMIGraphX/src/targets/gpu/gemm_impl.cpp:210: operator(): rocblas_invoke: rocBLAS call failed with status 3')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    expect(root('hipblas call returned rocblas_status_invalid_pointer in gemm_strided_batched')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    expect(root('!!! Exception during processing !!! miopenStatusBadParm')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    expect(root("MIOpen(HIP): Error [BuildHip] HIPRTC status = HIPRTC_ERROR_INVALID_OPTION (5), source file: naive_pool.cpp")).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    // The allocation statuses are left to the out-of-memory signatures.
    expect(root('solver returned rocblas_status_memory_error')?.kind).not.toBe('not-oom');
    expect(root('gemm: HIPBLAS_STATUS_ALLOC_FAILED')?.kind).not.toBe('not-oom');
  });

  it("reads MIOpen's errors and an uncaught miopen::Exception as not-oom on rocm", () => {
    const build = [
      'MIOpen(HIP): Error [BuildOcl] comgr status = INVALID_ARGUMENT (2)',
      'MIOpen Error: /long/src/MIOpen/src/hipoc/hipoc_program.cpp:312: Code object build failed. Source: MIOpenCol2Im2d.cl',
    ].join('\n');
    expect(root(build)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: true });
    expect(root('epoch 3:  41%|████      | 88/214 [00:12<00:17]MIOpen Error: /build/MIOpen/src/ocl/convolutionocl.cpp:611: No invoker was registered for convolution backward')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    expect(root('MIOpen(HIP): Error [D:/rocm/miopen/src/include/miopen/conv/heuristics/ai_heuristics.hpp:70] Unable to load file: gfx1100_metadata.ktn.model')).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    const terminate = ["terminate called after throwing an instance of 'miopen::Exception'", '  what():  /src/MIOpen/src/exec_utils.cpp:71: miopen::exec::Run(): pclose() failed'].join('\n');
    expect(root(terminate)).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    // MIOpen's allocation failure stays an out-of-memory.
    expect(root('MIOpen Error: /src/MIOpen/src/hip/handlehip.cpp:110: Memory not available to allocate buffer: 8589934592')?.kind).not.toBe('not-oom');
  });

  it("reads PyTorch's ROCm build raising 'CUDA error' under a hipBLAS status as rocm", () => {
    const log = [
      'train.py:88: UserWarning: bgemm_internal_cublaslt error: HIPBLAS_STATUS_NOT_SUPPORTED when calling hipblasLtMatmul with transpose_mat1 t transpose_mat2 n m 4096 n 512 k 4096. Will attempt to recover by calling unoptimized cublas instead.',
      'Traceback (most recent call last):',
      '  File "train.py", line 88, in <module>',
      '    y = a @ b',
      'RuntimeError: CUDA error: invalid device function',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'rocm' });
    // Without a ROCm library around it, the same error is CUDA's.
    expect(root('RuntimeError: CUDA error: invalid device function')?.platform).toBe('cuda');
  });
});

describe('the loader not finding a library', () => {
  it('reads a missing shared library as a not-oom that never started, on the platform its name says', () => {
    expect(root('/opt/bench/convtest: error while loading shared libraries: librocblas.so.4: cannot open shared object file: No such file or directory')).toMatchObject({ kind: 'not-oom', platform: 'rocm', catchable: false });
    expect(root('./infer: error while loading shared libraries: libcudnn.so.8: cannot open shared object file: No such file or directory')).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(root('sqlite3: error while loading shared libraries: libreadline.so.7: cannot open shared object file: No such file or directory')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });
});

describe("zsh's name for SIGABRT", () => {
  it("reads zsh's 'IOT instruction (core dumped)' job report as a native abort", () => {
    expect(root('[2]  + 48211 IOT instruction (core dumped)  ./bin/server --port 8080')).toMatchObject({ kind: 'not-oom', catchable: false });
    expect(root('zsh: IOT instruction (core dumped)  python3 bench.py')).toMatchObject({ kind: 'not-oom', catchable: false });
  });
});

describe('numbers of out-of-memory reports', () => {
  it("reads Android ART's heap report: the request, the free bytes and the growth limit", () => {
    const v = root('FATAL EXCEPTION: main\njava.lang.OutOfMemoryError: Failed to allocate a 4104 byte allocation with 1023840 free bytes and 999KB until OOM, target footprint 536870912, growth limit 536870912; giving up on allocation because <1% of heap free after GC.');
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 4104, freeBytes: 1023840, allowedBytes: 536870912 });
    // Older releases say "max allowed footprint".
    expect(root('java.lang.OutOfMemoryError: Failed to allocate a 65548 byte allocation with 16384 free bytes and 16KB until OOM, max allowed footprint 201326592, growth limit 201326592')).toMatchObject({ requestedBytes: 65548, freeBytes: 16384, allowedBytes: 201326592 });
  });

  it("reads a failed mmap's size as the request", () => {
    expect(root('RuntimeError: unable to mmap 4096 bytes from file </torch_5521_1192837_3>: Cannot allocate memory (12)')).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 4096 });
  });

  it("reads the TPU runtime's per-HBM report: the request and the free bytes in all", () => {
    const v = root('jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Could not allocate 268435456 bytes in memory 0x0x1_HBM0; 100663296 bytes allocatable, 201326592 bytes available');
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: 268435456, freeBytes: 201326592 });
  });
});

describe("TensorFlow's allocator messages", () => {
  it("reads TensorFlow 1.x's BFC line without the rounded size as the request on that GPU", () => {
    const log = [
      '2017-11-02 10:12:40.118301: W tensorflow/core/common_runtime/bfc_allocator.cc:273] Allocator (GPU_1_bfc) ran out of memory trying to allocate 48.00MiB.  Current allocation summary follows.',
      '2017-11-02 10:12:40.118390: I tensorflow/core/common_runtime/bfc_allocator.cc:627] Bin (256): \tTotal Chunks: 12, Chunks in use: 12. 3.0KiB allocated for chunks. 3.0KiB in use in bin. 2.1KiB client-requested in use in bin.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, requestedBytes: 48 * 1024 * 1024 });
    // The variant that says it is not a failure is still not one.
    expect(root('W tensorflow/core/common_runtime/bfc_allocator.cc:217] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.10GiB. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.')?.kind).not.toBe('catchable-oom');
  });

  it('reads the device of an OOM message wrapped after "on"', () => {
    const log = ['ResourceExhaustedError: OOM when allocating tensor with shape[64,256,56,56] and type half on ', '/job:localhost/replica:0/task:0/device:GPU:3 by allocator GPU_3_bfc'].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 3 });
  });
});

describe("Perl's out-of-memory exit, srun's Out Of Memory, Docker's daemon error", () => {
  it("reads Perl's fatal out-of-memory messages as a runtime-abort in host memory", () => {
    expect(root('Reading 48211 records\nOut of memory!\nPerl exited with active threads:\n\t2 running and unjoined')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false });
    expect(root('Out of memory during request for 1048592 bytes, total sbrk() is 2147418112 bytes!')).toMatchObject({ kind: 'runtime-abort', requestedBytes: 1048592 });
    expect(root('Out of memory in perl:util:safesysrealloc')).toMatchObject({ kind: 'runtime-abort', platform: 'cpu' });
  });

  it("reads srun's report of a task killed for memory as a host OOM", () => {
    expect(root('srun: error: node-a17: task 3: Out Of Memory')).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('srun: error: cn[041-042]: tasks 0-7: Out Of Memory\nsrun: launch/slurm: _step_signal: Terminating StepId=90211.0')).toMatchObject({ kind: 'host-oom' });
  });

  it("reads the Docker client's API error as a not-oom that stopped the command", () => {
    expect(root('$ docker run --shm-size=0 alpine true\ndocker: Error response from daemon: invalid mount config for type "tmpfs": invalid size.')).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });
});

describe('CUDA statuses by number and name, and NCCL in a backtrace', () => {
  it("reads a CUDA check's 'failed with error 2' as a catchable out-of-memory on CUDA", () => {
    expect(root('RuntimeError voxelize_cuda.cu 88 cuda execution failed with error 2')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    // Another number is not memory.
    expect(root('RuntimeError voxelize_cuda.cu 88 cuda execution failed with error 700')?.kind).toBe('not-oom');
  });

  it("reads 'cuda runtime error (30) : unknown error' under a Lua error as a not-oom on CUDA, with the Lua frames", () => {
    const log = [
      'THCudaCheck FAIL file=/tmp/luarocks_cutorch-scm-1-9041/cutorch/init.c line=261 error=30 : unknown error',
      "/opt/torch/install/bin/luajit: ./model.lua:17: cuda runtime error (30) : unknown error at /tmp/luarocks_cutorch-scm-1-9041/cutorch/init.c:261",
      'stack traceback:',
      "\t[C]: in function 'cuda'",
      "\t./model.lua:17: in function 'build'",
      '\tmain.lua:42: in main chunk',
      "\t[C]: in function 'dofile'",
    ].join('\n');
    const v = root(log);
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: false });
    expect(v?.userFrames?.[0]).toMatchObject({ file: './model.lua', line: 17 });
  });

  it("names CUDA for NCCL's own functions in a gdb backtrace", () => {
    const log = [
      'Thread 41 "python3" received signal SIGBUS, Bus error.',
      '0x00007f1c2a1b2c3d in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) () from /opt/lib/libnccl.so.2',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
  });
});

describe('reading a traceback pasted with blank lines', () => {
  it('walks up frames that each have a blank line after their code line', () => {
    const log = [
      'File "C:\\work\\splat\\train.py", line 512, in fit',
      '    loss = self.step(batch)',
      '',
      'File "C:\\work\\splat\\splat\\render.py", line 97, in step',
      '    out = rasterize(means, scales)',
      '',
      'RuntimeError: CUDA error: no kernel image is available for execution on the device',
    ].join('\n');
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: 'C:\\work\\splat\\splat\\render.py', line: 97 });
  });
});

describe("Julia's uncaught error", () => {
  it('reads ERROR: with its stacktrace as a catchable not-oom, its user frame outside Julia and its packages', () => {
    const log = [
      'julia> fit!(model, X)',
      'ERROR: DimensionMismatch: matrix A has dimensions (128,64), vector B has length 32',
      'Stacktrace:',
      ' [1] gemv!(y::Vector{Float32}, tA::Char, A::Matrix{Float32}, x::Vector{Float32})',
      '   @ LinearAlgebra /opt/julia-1.10.2/share/julia/stdlib/v1.10/LinearAlgebra/src/matmul.jl:404',
      ' [2] forward(m::Dense, x::Vector{Float32})',
      '   @ MyNet ~/.julia/dev/MyNet/src/layers.jl:88',
      ' [3] fit!(m::Model, X::Matrix{Float32})',
      '   @ Flux ~/.julia/packages/Flux/Wz6D4/src/train.jl:102',
      ' [4] top-level scope',
      '   @ REPL[3]:1',
    ].join('\n');
    const v = root(log);
    expect(v).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: true });
    expect(v?.userFrames?.[0]).toMatchObject({ file: '~/.julia/dev/MyNet/src/layers.jl', line: 88 });
    // Before Julia 1.6 the location followed the call on the same line.
    const old = ['ERROR: LoadError: UndefVarError: cu not defined', 'Stacktrace:', ' [1] top-level scope at /home/u/run.jl:12', ' [2] include(::String) at ./client.jl:457'].join('\n');
    expect(root(old)?.userFrames?.[0]).toMatchObject({ file: '/home/u/run.jl', line: 12 });
  });
});

describe("the JVM's stack trace under an OutOfMemoryError", () => {
  it('takes the innermost frame outside the JDK and Android as the user frame', () => {
    const log = [
      '12:01:44.210 ERROR c.e.ingest.Worker - failed',
      'java.lang.OutOfMemoryError: Java heap space',
      '\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)',
      '\tat java.base/java.util.ArrayList.grow(ArrayList.java:237)',
      '\tat com.example.ingest.RecordBatcher.add(RecordBatcher.java:142)',
      '\tat com.example.ingest.Worker.run(Worker.java:58)',
      '\tat java.base/java.lang.Thread.run(Thread.java:833)',
    ].join('\n');
    const v = root(log);
    expect(v).toMatchObject({ kind: 'catchable-oom', platform: 'cpu' });
    expect(v?.userFrames?.[0]).toMatchObject({ file: 'com/example/ingest/RecordBatcher.java', line: 142 });
  });
});
