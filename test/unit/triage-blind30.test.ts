// The message classes blind batch 30 showed the engine did not read: a container's state with exit code 137 as kubectl
// and docker print it, Heroku's memory-quota errors, Android ART's heap message on the line under its exception's class,
// and the JVM's OutOfMemoryError messages carried by another exception. Each test is a variant written for the class
// (other numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (text: string) => triageFailures(text, 'log').verdicts[0];

describe("a container's state with exit code 137", () => {
  it('reads kubectl describe and docker inspect as a SIGKILL for memory', () => {
    const describe = ['    Last State:     Terminated', '      Reason:       Error', '      Exit Code:    137', '      Started:      Tue, 03 Sep 2024 10:00:01 +0000'];
    expect(root(describe.join('\n'))).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    const inspect = ['"State": {', '    "Status": "exited",', '    "OOMKilled": false,', '    "ExitCode": 137,', '    "Error": "",', '    "Pid": 0', '}'];
    expect(root(inspect.join('\n'))).toMatchObject({ kind: 'host-oom', evidence: [{ line: 4 }] });
  });

  it('does not take an empty error field for a stated failure', () => {
    expect(root('{\n  "Status": "exited",\n  "ExitCode": 0,\n  "Error": ""\n}')).toBeUndefined();
  });
});

describe("Heroku's memory-quota errors", () => {
  it('reads R15 as a kill and R14 as swapping, not an OOM', () => {
    const r15 = root('2024-05-01T10:00:00+00:00 heroku[worker.2]: Process running mem=2100M(205.0%)\n2024-05-01T10:00:00+00:00 heroku[worker.2]: Error R15 (Memory quota vastly exceeded)');
    expect(r15).toMatchObject({ kind: 'host-oom', platform: 'cpu', catchable: false });
    const r14 = root('heroku[web.3]: Process running mem=1090M(106.4%)\nheroku[web.3]: Error R14 (Memory quota exceeded)');
    expect(r14).toMatchObject({ kind: 'not-oom', platform: 'cpu', catchable: false });
    expect(r14!.summary).toContain('R14');
  });
});

describe("Android ART's heap message under its exception's class", () => {
  it('reads the request and the free bytes from the next line', () => {
    const log = ['**java.lang.OutOfMemoryError** in **com.example.gallery.ThumbActivity**', 'Failed to allocate a 8294412 byte allocation with 3145728 free bytes and 3MB until OOM', '', '## Stacktrace'];
    expect(root(log.join('\n'))).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', requestedBytes: 8294412, freeBytes: 3145728 });
  });
});

describe("the JVM's OutOfMemoryError message carried by another exception", () => {
  it('is a catchable out-of-memory on the host', () => {
    for (const line of ['SimulationException(Metaspace)', 'java.util.concurrent.ExecutionException: Java heap space', 'ReportError(GC overhead limit exceeded)']) {
      expect(root(line), line).toMatchObject({ kind: 'catchable-oom', platform: 'cpu', catchable: true });
    }
    expect(root('NetworkException(Connection reset)')?.kind).not.toBe('catchable-oom');
  });
});
