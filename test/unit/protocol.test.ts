import { describe, expect, it } from 'vitest';
import * as protocol from '../../server/src/protocol';

describe('protocol', () => {
  it('keeps every custom method name stable (a rename breaks older clients)', () => {
    const methods = Object.values(protocol as Record<string, unknown>)
      .flatMap((v) => (typeof v === 'object' && v !== null && 'method' in v && typeof v.method === 'string' ? [v.method] : []))
      .sort();
    expect(methods).toMatchSnapshot();
    for (const m of methods) expect(m).toMatch(/^(headroom|experimental)\//);
  });
});
