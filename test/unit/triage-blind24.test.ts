// The message classes blind batch 24 (queries on training-failure wordings) showed the engine did not know. Each test is a
// variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const all = (text: string) => triageFailures(text, 'log').verdicts;
const root = (text: string) => all(text)[0];

describe('host kills in words no signature read', () => {
  it("reads the kernel's memory cgroup usage-against-limit lines (printed only in its OOM report) as a host OOM", () => {
    const log = [
      '[812334.120551] memory: usage 33554432kB, limit 33554432kB, failcnt 40918',
      '[812334.120553] memory+swap: usage 33554432kB, limit 9007199254740988kB, failcnt 0',
      '[812334.120554] kmem: usage 210344kB, limit 9007199254740988kB, failcnt 0',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root('swap: usage 0kB, limit 0kB, failcnt 0')?.kind).toBe('host-oom');
  });

  it('reads a log that ends on a bare SIGKILL line as a host kill, and not one that goes on after it', () => {
    const log = ['epoch 2 step 800 rss 41.2 GB', 'epoch 2 step 900 rss 47.9 GB', '  SIGKILL  ', ''].join('\n');
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    expect(root(['worker 3: SIGKILL', 'SIGKILL', 'restarting worker 3', 'worker 3 ready'].join('\n'))?.kind).not.toBe('host-oom');
  });
});

describe('not-oom failures in words the fallback did not read', () => {
  it("reads a cloud API's quota refusal as a not-oom, with the accelerator its quota names", () => {
    const log = [
      '{',
      '  "error": {',
      '    "code": 429,',
      '    "message": "Quota exceeded for quota metric \'custom_model_training_nvidia_a100_gpus\' and limit \'per region\' of service \'aiplatform.googleapis.com\'",',
      '    "status": "RESOURCE_EXHAUSTED"',
      '  }',
      '}',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cuda', catchable: true });
    expect(root("ERROR: (gcloud.compute.tpus.create) Quota 'TPU_V4_PODSLICE' exceeded. Limit: 0.0 in zone us-central2-b.")).toMatchObject({ kind: 'not-oom', platform: 'xla-tpu' });
    // gRPC's status with a quota message is not an XLA out-of-memory either.
    expect(root('google.api_core.exceptions.ResourceExhausted: 429 RESOURCE_EXHAUSTED: Quota exceeded for quota metric \'Generate requests\' and limit \'per minute\'')?.kind).toBe('not-oom');
  });

  it("reads TensorFlow 1.x's '(see above for traceback)' exception line as the exception", () => {
    const log = [
      'InvalidArgumentError (see above for traceback): Incompatible shapes: [16,40] vs. [16,41]',
      '\t [[Node: loss/sub = Sub[T=DT_FLOAT, _device="/job:localhost/replica:0/task:0/device:GPU:0"](dense/BiasAdd, labels)]]',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: true });
    expect(root(log)?.summary).toMatch(/InvalidArgumentError/);
  });

  it("reads PaddlePaddle's DataLoader-workers segfault line as a native crash", () => {
    expect(root(['epoch 3 iter 120 loss 0.412', 'ERROR: Unexpected segmentation fault encountered in DataLoader workers.'].join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
  });

  it("takes moreutils ts's timestamp off an exception line and its traceback", () => {
    const log = [
      'Mar 12 14:03:11 Traceback (most recent call last):',
      'Mar 12 14:03:11   File "run_suite.py", line 88, in main',
      'Mar 12 14:03:11     check(results)',
      'Mar 12 14:03:11   File "run_suite.py", line 41, in check',
      "Mar 12 14:03:11     raise ValueError('suite failed: %d' % n)",
      'Mar 12 14:03:11 ValueError: suite failed: 3',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: true });
    expect(root(log)?.userFrames?.[0]).toMatchObject({ file: 'run_suite.py', line: 41 });
  });
});

describe("StreamExecutor's scratch allocator over its limit", () => {
  it('reads the workspace request and its limit as a catchable out-of-memory on the GPU', () => {
    const log = [
      '2024-02-11 09:14:52.031 W external/xla/xla/service/gpu/conv_algorithm_picker.cc:728] None of the algorithms provided by cuDNN heuristics worked',
      '  Profiling failure on cuDNN engine eng4{}: RESOURCE_EXHAUSTED: Allocating 2684354560 bytes exceeds the memory limit of 2147483648 bytes.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true, requestedBytes: 2684354560, allowedBytes: 2147483648 });
    // A cuFFT plan's workspace names no cuDNN: the allocator alone says GPU.
    expect(root('jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: failed to initialize batched cufft plan with customized allocator: Allocating 8000000160 bytes exceeds the memory limit of 4294967296 bytes.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 8000000160 });
  });
});

describe('out-of-memory statuses of other runtimes', () => {
  it("reads Kunlun XPU's runtime and XDNN workspace failures as a catchable OOM on xpu", () => {
    expect(root(['W0305 10:12:44.871 xpu_context.cc:121] ioctl() fail, (705) Device memory not enough', 'Error Message Summary:', 'ResourceExhaustedError: XPU malloc failed'].join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'xpu', catchable: true });
    expect(root('ExternalError: XPU API return wrong value[3 xpu api no enough workspace] (at /paddle/paddle/phi/kernels/xpu/matmul_kernel.cc:58)')).toMatchObject({ kind: 'catchable-oom', platform: 'xpu' });
  });

  it("reads a SYCL out-of-memory status under an uncaught sycl::exception as a runtime abort", () => {
    const log = [
      "terminate called after throwing an instance of 'sycl::_V1::exception'",
      '  what():  Native API failed. Native API returns: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)',
      'Aborted (core dumped)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'runtime-abort', platform: 'xpu', catchable: false });
    // Raised to Python, the same status stays catchable.
    expect(root('RuntimeError: level_zero backend failed with error: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)')).toMatchObject({ kind: 'catchable-oom', catchable: true });
  });

  it("reads PyTorch's allocator message cut right after its request", () => {
    expect(root('Error occurred when executing KSampler: HIP out of memory. Tried to allocate 6.25 GiB. GPU ')).toMatchObject({ kind: 'catchable-oom', platform: 'rocm', requestedBytes: 6710886400 });
    expect(root('torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB.')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', requestedBytes: 536870912 });
  });
});

describe("the watchdog thread's termination line around a collective timeout", () => {
  it('reads it as the hang when a re-wrapped paste broke the timeout sentence, with the rank of its prefix', () => {
    const log =
      '[rank5]:[E611 02:10:44.508118412 ProcessGroupNCCL.cpp:1690] [PG ID 0 PG GUID 0(default_pg) Rank 5] Process group watchdog thread terminated with exception: [Rank 5] Watch dog caught collective operation timeout: WorkNCCL(SeqNum=812, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600041 millis econds before timing out.';
    expect(root(log)).toMatchObject({ kind: 'hang', platform: 'cuda', catchable: false, rank: 5 });
    // The watchdog ending on another exception is not a timeout.
    expect(root('[rank1]:[E611 02:10:44.5 ProcessGroupNCCL.cpp:1690] Process group watchdog thread terminated with exception: CUDA error: an illegal memory access was encountered')?.kind).not.toBe('hang');
  });
});

describe("ProcessGroupGloo's monitoredBarrier naming the faulty rank", () => {
  it("takes that rank's own error as the failure, not the other ranks' tracebacks after it", () => {
    const log = [
      '[rank2]:   File "/opt/venv/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 4301, in _create_process_group_wrapper',
      '[rank2]:     helper_pg = ProcessGroupGloo(store, rank, world_size, timeout=timeout)',
      '[rank2]: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 3/4 clients joined.',
      '[rank0]:[E1019 11:02:31.004 ProcessGroupGloo.cpp:144] Rank 0 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 2. Please check rank 2 logs for faulty rank.',
      '[rank1]:[E1019 11:02:31.006 ProcessGroupGloo.cpp:144] Rank 1 successfully reached monitoredBarrier, but received errors while waiting for send/recv from rank 2. Please check rank 2 logs for faulty rank.',
      '[rank0]: Traceback (most recent call last):',
      '[rank0]:   File "/work/sft.py", line 88, in <module>',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: true, rank: 2 });
  });
});

describe('an allocator message a padded terminal capture cut inside a word', () => {
  it("joins the cut word back and reads the listed process's memory as this process's", () => {
    const head = '[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 1 has a total capacity of 23.55 GiB of which 1.12 GiB is free. Process 77120 has 22.42 GiB mem';
    const log = [
      '[rank1]:   File "/work/train_dpo.py", line 210, in step'.padEnd(head.length),
      '[rank1]:     logits = model(**batch).logits'.padEnd(head.length),
      head,
      'ory in use. Of the allocated memory 20.87 GiB is allocated by PyTorch, and 1.18 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', device: 1, rank: 1, requestedBytes: 4294967296 });
    expect(root(log)?.processInUseBytes).toBeGreaterThan(22 * 1024 ** 3);
  });
});

describe("a DataLoader worker's crash report in a run on a GPU", () => {
  it('reads it as a host process crash, and the main traceback cut right after it as its report', () => {
    const log = [
      "Namespace(batch_size=16, device='cuda:0', epochs=120, gpu='1', lr=0.0003, workers=8)",
      'Using GPU 1 for training',
      'epoch 0:   3%|▎         | 12/402 [00:09<05:01,  1.29it/s]',
      'ERROR: Unexpected segmentation fault encountered in worker.',
      'Traceback (most recent call last):',
      '  File "/home/u/miniconda3/lib/python3.9/site-packages/torch/utils/data/dataloader.py", line 1011, in _try_get_data',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(root(log)?.summary).toMatch(/segmentation fault encountered in worker/);
  });
});

describe("a launcher's traceback cut at its raise of the child's failure", () => {
  it("is the launcher's report: the worker's own exception above it is the failure", () => {
    const log = [
      '  File "/opt/venv/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 1146, in _try_get_data',
      "    raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e",
      'RuntimeError: DataLoader worker (pid(s) 88412) exited unexpectedly',
      'Traceback (most recent call last):',
      '  File "/opt/venv/bin/accelerate", line 8, in <module>',
      '    sys.exit(main())',
      '  File "/opt/venv/lib/python3.10/site-packages/accelerate/commands/launch.py", line 704, in simple_launcher',
      '    raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: true });
    expect(root(log)?.summary).toMatch(/DataLoader worker/);
  });
});

describe("c10d's store wait timing out, its traceback cut off under it", () => {
  it('reads the logged timeout as the failure, catchable, on its rank', () => {
    const log = [
      '[rank6]:[W1104 22:15:09.118 socket.cpp:487] [c10d] waitForInput: socket SocketImpl(fd=41, addr=[node3]:40122, remote=[node0]:29400) timed out after 600000ms',
      '[rank6]: Traceback (most recent call last):',
      '[rank6]:   File "/work/pretrain.py", line 51, in <module>',
      '[rank6]:     dist.barrier()',
    ].join('\n');
    expect(root(log)).toMatchObject({ kind: 'not-oom', catchable: true, rank: 6 });
    expect(root(log)?.summary).toMatch(/rendezvous store/);
  });
});
