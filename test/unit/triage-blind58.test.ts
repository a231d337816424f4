// Numbers the samples of the tenth session labelled that the engine did not read: the device NCCL's WARN line names in its
// prefix, the one accelerator PyTorch's device check names beside the CPU, and the reserved sizes of an allocator message
// cut inside its last words. Each test is a variant written for the
// class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('devices named by a prefix or a check', () => {
  it("takes the device from NCCL's WARN prefix", () => {
    expect(root('node-3:4242:4300 [5] transport/net_ib.cc:154 NCCL WARN NET/IB : mlx5_0:1 async fatal event on QP (0x1): local work queue error')).toMatchObject({ kind: 'not-oom', device: 5 });
    expect(root('rank 0 step 10 [5] NCCL WARN is a string in a message')?.device).toBeUndefined();
  });

  it("takes the one accelerator PyTorch's device check names beside the CPU, and none of two", () => {
    expect(root('RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:3! (when checking argument for argument mat1 in method wrapper_addmm)')).toMatchObject({ kind: 'not-oom', device: 3 });
    expect(root('RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cuda:0!')?.device).toBeUndefined();
  });
});

describe('an allocator message cut inside its last words', () => {
  const GiB = 1024 ** 3;
  const MiB = 1024 ** 2;

  it("reads the reserved-but-unallocated size of 2.1+'s message cut after 'is res'", () => {
    const cut = 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 1 has a total capacity of 23.65 GiB of which 1.10 GiB is free. Of the allocated memory 15.02 GiB is allocated by PyTorch, and 6.30 GiB is reserved by PyTorch but una';
    expect(triageFailures(cut, 'log').verdicts[0]).toMatchObject({ kind: 'fragmentation', device: 1, reservedUnallocatedBytes: Math.round(6.3 * GiB) });
    expect(triageFailures(cut.replace(/ is reserved by PyTorch but una$/, ' is re'), 'log').verdicts[0]?.reservedUnallocatedBytes).toBeUndefined();
  });

  it("reads the reserved total of 1.x's message cut after 'res', and not a field that could be another", () => {
    const head = 'RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB total capacity; 3.10 GiB already allocated; 0 bytes free; ';
    expect(triageFailures(`${head}3.50 GiB rese`, 'log').verdicts[0]).toMatchObject({ kind: 'fragmentation', reservedBytes: Math.round(3.5 * GiB), requestedBytes: 20 * MiB });
    expect(triageFailures(`${head}3.50 GiB r`, 'log').verdicts[0]?.reservedBytes).toBeUndefined();
  });
});

