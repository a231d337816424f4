// The message class blind batch 66 showed the engine did not read. The test is a variant written for the class (other
// names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("TensorFlow's copy into a tensor it could not allocate", () => {
  it("reads 'Dst tensor is not initialized' as an OOM the program received, on the device the lines around name", () => {
    const log = ['Traceback (most recent call last):', '  File "fit.py", line 40, in <module>', '    model.fit(x, y, batch_size=512)', 'tensorflow.python.framework.errors_impl.InternalError: Dst tensor is not initialized.'];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'cuda', catchable: true });
    expect(root(log)?.userFrames[0]).toMatchObject({ file: 'fit.py', line: 40 });
  });
});
