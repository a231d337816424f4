// The message classes blind batch 51 showed the engine did not read: tt-metal's circular buffers over a core's L1 and its
// allocator's message printed as a format string over its arguments, a CUDA library handle that failed beside the device
// running out, PyTorch's OOM message cut inside its first words, logs pasted through Markdown (a quote's "> ", an inline
// code span's backticks, a blank line after every line), a failed check MXNet raised rather than aborted on, Paddle's
// OOM under glog's fatal banner and its BadAlloc escaping into terminate, and Theano's CudaNdarray allocation. Each test
// is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe("Tenstorrent's tt-metal", () => {
  it('reads circular buffers beyond L1 with the size and the limit, and a clash with L1 buffers, as OOMs on its card', () => {
    const beyond = 'RuntimeError: TT_THROW @ /src/tt_metal/impl/program/program.cpp:902: tt::exception\ninfo:\nStatically allocated circular buffers on core range [(x=0,y=0) - (x=3,y=3)] grow to 1900000 B which is beyond max L1 size of 1499136 B';
    expect(root(beyond)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', catchable: true, requestedBytes: 1900000, allowedBytes: 1499136 });
    const clash = 'Statically allocated circular buffers in program 77 clash with L1 buffers on core range [(x=0,y=0) - (x=1,y=1)]. L1 buffer allocated at 400000 and static circular buffer region ends at 500000';
    expect(root(clash)).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu' });
  });

  it("reads the allocator's format string with its arguments on the lines under it", () => {
    const log = ['RuntimeError: TT_THROW @ tt_metal/impl/allocator/allocator.cpp:107: tt::exception', 'info:', 'Out of Memory: Not enough space to allocate {} B {} buffer across {} banks, where each bank needs to store {} B', '52428800', 'L1', '64', '819200', 'backtrace:'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'xla-tpu', requestedBytes: 52428800 });
  });
});

describe('a CUDA library handle beside the device running out', () => {
  it('takes the out-of-memory lines as the failure, not the handle status', () => {
    const log = [
      'E tensorflow/stream_executor/cuda/cuda_blas.cc:238] failed to create cublas handle: CUBLAS_STATUS_NOT_INITIALIZED',
      'E tensorflow/stream_executor/cuda/cuda_driver.cc:828] failed to allocate 64.00M (67108864 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of memory',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 67108864 });
    expect(root(log[0]!)).toMatchObject({ kind: 'not-oom' });
  });
});

describe("PyTorch's OOM message cut inside its first words", () => {
  const tb = ['Traceback (most recent call last):', '  File "/home/a/gan/train.py", line 88, in <module>', '    loss.backward()'];

  it('reads "CUDA ou…" and "HIP out o…" at the end of the log as the OOM', () => {
    expect(root([...tb, 'RuntimeError: CUDA out of mem'].join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, userFrames: [{ file: '/home/a/gan/train.py', line: 88 }] });
    expect(root([...tb, 'torch.OutOfMemoryError: HIP out o', ''].join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'rocm' });
  });

  it('reads no other cut message, nor a cut one the log goes on after', () => {
    expect(root([...tb, 'RuntimeError: CUDA error'].join('\n'))?.kind).toBe('not-oom');
    expect(root([...tb, 'RuntimeError: CUDA o'].join('\n'))?.kind).toBe('not-oom');
    expect(root([...tb, 'RuntimeError: CUDA ou', 'epoch 2 started'].join('\n'))?.kind).toBe('not-oom');
  });
});

describe('logs pasted through Markdown', () => {
  it("reads a traceback quoted with '> ' with its frames", () => {
    const log = ['> Traceback (most recent call last):', '>   File "/srv/nlp/fit.py", line 31, in <module>', '>     step()', '> RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 1; 10.76 GiB total capacity; 9.80 GiB already allocated; 5.12 MiB free; 9.90 GiB reserved in total by PyTorch)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', device: 1, requestedBytes: 20 * 1024 ** 2, userFrames: [{ file: '/srv/nlp/fit.py', line: 31 }] });
  });

  it("reads the shell's Killed inside an inline code span", () => {
    expect(root('`Loading weights\nParsing the graph...\nKilled`')?.kind).toBe('host-oom');
  });

  it("reads ggml's abort with a blank line after every line", () => {
    const log = ['CUDA error: out of memory', '', '  current device: 3, in function alloc at /src/ggml-cuda.cu:445', '', '  cuMemCreate(&handle, reserve_size, &prop, 0)', '', '/src/ggml-cuda.cu:73: CUDA error'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', device: 3 });
  });
});

describe('raised, aborted', () => {
  it('reads a failed check MXNet raised as MXNetError as catchable, and a glog fatal check as an abort', () => {
    expect(root('mxnet.base.MXNetError: [09:00:00] src/operator/tensor/./elemwise.h:120: Check failed: err == cudaSuccess (2 vs. 0) Name: mxnet_generic_kernel ErrStr:out of memory')).toMatchObject({ kind: 'catchable-oom', catchable: true });
    expect(root('F0101 09:00:00.000 123 common.cu:55] Check failed: error == cudaSuccess (2 vs. 0)  out of memory')).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });

  it("reads Paddle's OOM under glog's fatal banner as an abort, and as raised without it", () => {
    const message = ['ResourceExhaustedError: ', '', 'Out of memory error on GPU 1. Cannot allocate 2.000000GB memory on GPU 1, available memory is only 96.500000MB.', '', 'Please check whether there is any other process using GPU 1.', ' at (/paddle/paddle/fluid/memory/allocation/cuda_allocator.cc:69)'];
    expect(root([...message, '*** Check failure stack trace: ***', '    @     0x7f00  google::LogMessage::Fail()'].join('\n'))).toMatchObject({ kind: 'runtime-abort', catchable: false, device: 1, requestedBytes: 2 * 1024 ** 3 });
    expect(root(message.join('\n'))).toMatchObject({ kind: 'catchable-oom', catchable: true, device: 1 });
  });

  it("reads Paddle's BadAlloc escaping into terminate as an OOM abort", () => {
    expect(root("terminate called after throwing an instance of 'paddle::memory::allocation::BadAlloc'\n  what():  \n\n--------------------------------------")).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
  });
});

describe("Theano's GPU backend", () => {
  it('reads a CudaNdarray allocation failure as a GPU OOM', () => {
    expect(root('RuntimeError: CudaNdarray_NewDims: allocation failed.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
  });
});
