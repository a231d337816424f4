// The message class blind batch 74 showed the engine did not read. The test is a variant written for the class (other
// numbers and times), not a corpus log.
import { describe, expect, it } from 'vitest';
import { triageFailures } from '../support/triageFailures';

const root = (lines: string[]) => triageFailures(lines.join('\n'), 'log').verdicts[0];

describe("AWS Neuron's runtime driver in its column format", () => {
  it("reads 'TDRV:dmem_alloc_internal … Failed to alloc DEVICE memory: N' as the device's OOM with the request", () => {
    const log = [
      '2025-Mar-02 10:00:00.000001  4242:4242  ERROR  TDRV:dmem_alloc_internal                     Failed to alloc DEVICE memory: 268435456',
      '2025-Mar-02 10:00:00.000500  4242:4242  ERROR  TDRV:tensor_allocate                         Failed to allocate 268435456 bytes on DEVICE for tensor UNKNOWN.',
    ];
    expect(root(log)).toMatchObject({ kind: 'catchable-oom', platform: 'npu', requestedBytes: 268435456 });
  });
});
