// The message classes blind batch 34 showed the engine did not read: a caching-allocator message copied in lower case,
// PyTorch 1.x's collective timeout raised from the work's wait, the watchdog dying inside a timeout's desync report, the
// CUDA samples' numbered check, Jittor's overflow report, the Go runtime's lone throw, and a child that died of SIGKILL as
// Python's CalledProcessError says it. Each test is a variant written for the class (other numbers, names and paths).
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('a caching-allocator message copied in lower case', () => {
  it('is read with its numbers', () => {
    const log = 'cuda out of memory. tried to allocate 64.00 mib (gpu 1; 11.00 gib total capacity; 9.50 gib already allocated; 20.00 mib free; 10.20 gib reserved in total by pytorch)';
    expect(root(log)).toMatchObject({ kind: 'fragmentation', platform: 'cuda', device: 1, requestedBytes: 64 * 1024 ** 2, deviceTotalBytes: 11 * 1024 ** 3, freeBytes: 20 * 1024 ** 2 });
  });
});

describe('collective timeouts in other forms', () => {
  it("reads PyTorch 1.x's 'Caught collective operation timeout' as a hang on its rank", () => {
    const log = 'RuntimeError: [Rank 5] Caught collective operation timeout: WorkNCCL(OpType=BROADCAST, TensorShape=[1024], Timeout(ms)=600000) ran for 600211 milliseconds before timing out.';
    expect(root(log)).toMatchObject({ kind: 'hang', platform: 'cuda', catchable: false, rank: 5 });
  });

  it('reads the watchdog dying inside a timeout\'s desync report as the timeout', () => {
    const log = [
      '[E ProcessGroupNCCL.cpp:900] [Rank 2] NCCL watchdog thread terminated with exception: traceMap[seq][rank].second == kEventStart INTERNAL ASSERT FAILED at "TraceUtils.h":240, please report a bug to PyTorch. Timeout rank [2] last trace item must be kEventStart',
      'Exception raised from retrieveDesyncReport at TraceUtils.h:240 (most recent call first):',
    ];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'hang', rank: 2 });
  });
});

describe('out-of-memory statuses in other programs', () => {
  it("reads the CUDA samples' numbered check with code=2 as an OOM", () => {
    expect(root('CUDA error at src/solver.cu:77 code=2 "cudaMalloc(&buf, bytes)"')).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
  });

  it("reads Jittor's overflow report with the device total", () => {
    const log = ['Failed reason:[f 0301 10:00:00.000000 12 mem_info.cc:272] ', '*******************', 'GPU memory is overflow, please reduce your batch_size or data size!', 'Total: 23.65GB Used:  23.1GB'];
    // The header is two lines above here: the sentence alone still says memory ran out, among the log's last lines.
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', deviceTotalBytes: Math.round(23.65 * 1024 ** 3) });
  });

  it("reads the Go runtime's lone throw as the host out of memory, as with the runtime's line above it", () => {
    expect(root('crash-2024.log:fatal error: out of memory')).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });

  it("reads a child that died of SIGKILL, as CalledProcessError says it, as a host kill", () => {
    const log = "subprocess.CalledProcessError: Command '['/usr/bin/python3', 'train.py']' died with <Signals.SIGKILL: 9>.";
    expect(root(log)).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
  });
});
