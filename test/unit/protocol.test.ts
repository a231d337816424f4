import { describe, expect, it } from 'vitest';
import * as protocol from '../../server/src/protocol';

describe('protocol', () => {
  it('keeps every custom method name stable (a rename breaks older clients)', () => {
    const methods = Object.values(protocol)
      .filter((v): v is { method: string } => typeof v === 'object' && v !== null && 'method' in v)
      .map((v) => v.method)
      .sort();
    expect(methods).toMatchSnapshot();
    for (const m of methods) expect(m).toMatch(/^(headroom|experimental)\//);
  });
});
