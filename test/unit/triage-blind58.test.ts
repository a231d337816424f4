// Numbers the samples of the tenth session labelled that the engine did not read: the device NCCL's WARN line names in its
// prefix, and the one accelerator PyTorch's device check names beside the CPU. Each test is a variant written for the
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
