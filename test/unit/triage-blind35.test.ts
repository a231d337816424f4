// The message classes blind batch 35 showed the engine did not read: a wrapper's "failed with code 137", the JVM failing to
// start for its heap, Cambricon's MLU allocation failure, and a check's bare FAIL line. Each test is a variant written for
// the class (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe('host memory', () => {
  it("reads a wrapper's 'failed with code 137' as a SIGKILL for memory", () => {
    expect(root('SolverException: [Error] backend execution failed with code 137 and produced no output.')).toMatchObject({ kind: 'host-oom', platform: 'cpu' });
  });

  it('reads the JVM failing to start for its heap as an abort', () => {
    const log = ['Error occurred during initialization of VM', 'Could not reserve enough space for 4194304KB object heap'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'runtime-abort', platform: 'cpu', catchable: false });
    expect(root('# There is insufficient memory for the Java Runtime Environment to continue.')?.kind).toBe('runtime-abort');
  });
});

describe("Cambricon's MLU runtime", () => {
  it('reads its allocation failure as an OOM on the NPU class, on the card it names', () => {
    const log = ['2024-01-02 03:04:05.000001: [cnrtError] [31337] [Card: 2] cnrtMalloc: Malloc MLU device memory failed.', 'Traceback (most recent call last):', '  File "fit.py", line 9, in <module>', '    y = model(x)'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'npu', device: 2 });
  });
});

describe("a check's FAIL line", () => {
  it('is a stated failure, and an error code in it is no metric', () => {
    expect(root('THCudaCheck FAIL file=/src/THC/THCGeneral.cpp line=88 error=7 : too many resources requested for launch')?.kind).toBe('not-oom');
    expect(root('eval | error=12 | loss 0.4')).toBeUndefined();
  });
});
