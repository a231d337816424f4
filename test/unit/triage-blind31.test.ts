// The message classes blind batch 31 showed the engine did not read: an out-of-memory statement among a log's last lines
// with no word of failure on it, an allocation "failed" in other words before a program's own termination notice, NCCL's
// WARN lines as the failure they state, a tool's numbered ERROR, torch_memory_saver's driver check and UCX's allocation
// failure. Each test is a variant written for the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('an out-of-memory statement among the last lines', () => {
  it('is the failure even with no word of failure on it, ahead of the errors printed under it', () => {
    const matlab = ['>> run_solver(cfg)', 'Out of memory. Type "help memory" for your options.', '', 'Error in run_solver (line 42)', '    K = assemble(mesh);'];
    expect(root(matlab.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    expect(root('PoolAllocator out of memory\n [requested: 2097152 B]')?.kind).toBe('catchable-oom');
  });

  it('is still hedged by advice and warnings', () => {
    expect(root('epoch 4 done\nTip: lower the batch size if you run out of memory')).toBeUndefined();
  });
});

describe('an allocation that failed in other words, then the program terminated', () => {
  it('is a runtime-abort', () => {
    const log = ['[ALLOC_CHECK] Expected ret == 0 to be true, but got false. Alloc Device Memory Failed! Program Terminated.'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', catchable: false });
  });
});

describe('stated failures the last resort reads', () => {
  it("reads NCCL's WARN as the failure it states, and a tool's numbered ERROR, not as a metric", () => {
    const nccl = ['node3:811:811 [2] NCCL INFO Bootstrap : Using ib0:10.0.0.3<0>', "node3:811:811 [2] misc/cudawrap.cc:190 NCCL WARN Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='')"];
    expect(root(nccl.join('\n'))).toMatchObject({ kind: 'not-oom', platform: 'cuda' });
    expect(root('ERROR: 7 GPU[3]: fan: Data could not be read')?.kind).toBe('not-oom');
    expect(root('epoch 2 | error: 15 | loss 0.3')).toBeUndefined();
  });
});

describe("torch_memory_saver's driver check and UCX's allocation failure", () => {
  it('reads CUresult 2 as an exit for device memory, other results not as an OOM', () => {
    expect(root('[torch_memory_saver.cpp] CUresult error  result=2 file=csrc/core.cpp func=map_pages line=88')).toMatchObject({ kind: 'runtime-abort', platform: 'cuda', catchable: false });
    // Another result is no OOM; the line names memory (the library's own name), so the last resort leaves it unread.
    expect(root('[torch_memory_saver.cpp] CUresult error  result=1 file=csrc/core.cpp func=map_pages line=88')).toBeUndefined();
  });

  it("reads UCX's failed buffer allocation as a collective OOM", () => {
    const log = '[1700000000.1] [gpu7:4242:0]   uct_mem.c:158  UCX  ERROR   failed to allocate 268435456 bytes using md cuda_cpy for ucp_rndv_frags: Out of memory';
    expect(root(log)).toMatchObject({ kind: 'collective-oom', catchable: false, requestedBytes: 268435456 });
  });
});
