// The message classes blind batch 62 showed the engine did not read. Each test is a variant written for the class (other
// numbers, names and paths), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe('host memory', () => {
  it("reads Dask's nanny restarting a worker over its memory budget as a host kill, also above a cut traceback", () => {
    expect(root(['distributed.nanny - WARNING - Worker tcp://10.0.0.5:40123 (pid=8812) exceeded 95% memory budget. Restarting...'])?.kind).toBe('host-oom');
    const log = ['distributed.nanny - WARNING - Worker exceeded 95% memory budget. Restarting', 'Traceback (most recent call last):', '  File "/opt/app/run.py", line 30, in main', '    client.gather(futures)', '  File "/usr/lib/python3.10/site-packages/distributed/client.py", line 2100, in gather', '    return self.sync('];
    expect(root(log)?.kind).toBe('host-oom');
  });

  it("reads Kaggle's restart notice and a MemoryError Chaquopy hands to Java", () => {
    expect(root(['Your notebook tried to allocate more memory than is available. It has restarted.'])?.kind).toBe('host-oom');
    expect(root(['com.chaquo.python.PyException: MemoryError: Unable to allocate 512. MiB for an array'])?.kind).toBe('catchable-oom');
  });
});

describe('device memory', () => {
  it("reads cuML's workspace check with its sizes and device", () => {
    expect(root(['Not enough free memory on device 1 to run pairwise_distance. needed=4294967296, free=1073741824'])).toMatchObject({ kind: 'catchable-oom', device: 1, requestedBytes: 4294967296, freeBytes: 1073741824 });
  });

  it("reads ggml's assert on a failed backend buffer and OpenACC's fatal error as aborts", () => {
    expect(root(['GGML_ASSERT: /src/ggml/ggml-backend.c:1102: data != NULL && "failed to allocate buffer"'])?.kind).toBe('runtime-abort');
    expect(root(['Accelerator Fatal Error: call to cuMemAlloc returned error 2 (CUDA_ERROR_OUT_OF_MEMORY): Out of memory', ' File: /src/solver.f90', ' Function: init:88'])?.kind).toBe('runtime-abort');
  });

  it('reads an application saying the VRAM was not enough, but not a loader weighing its options at debug level', () => {
    expect(root(['Error: insufficient VRAM to decode the video at 1080p'])).toMatchObject({ kind: 'catchable-oom', platform: 'cuda' });
    expect(root(['time=2025-03-01T10:00:00Z level=DEBUG source=memory.go:330 msg="insufficient VRAM to load any model layers"', 'time=2025-03-01T10:00:01Z level=INFO msg="model loaded on CPU"'])?.kind).not.toBe('catchable-oom');
  });
});
