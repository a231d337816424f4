import { describe, expect, it } from 'vitest';
import { findProbe, listProbes, parseProbeHeader } from '../../server/src/runs/catalog';
import { EventLineReader, type SupervisorEvent } from '../../server/src/runs/targets/target';

describe('probe catalog', () => {
  it('reads id, title, seed, GPU need, ranks and variants from the header', () => {
    const probe = parseProbeHeader(
      '"""demo-probe: A title here\n\nSeed: 004\nNeeds GPU: yes\nMin ranks: 2\nVariants: a, b-c\n\nProse with Variants: not this.\n"""\nimport os\n',
      '/x/demo_probe.py',
    );
    expect(probe).toEqual({ id: 'demo-probe', title: 'A title here', seed: '004', needsGpu: true, minRanks: 2, variants: ['a', 'b-c'], file: '/x/demo_probe.py' });
  });

  it('refuses a header without its fields, with a code', () => {
    expect(() => parseProbeHeader('"""x: y\nSeed: 1\n"""', 'x.py')).toThrow(expect.objectContaining({ code: 'HR_PROBE_HEADER' }));
    expect(() => parseProbeHeader('import os', 'x.py')).toThrow(expect.objectContaining({ code: 'HR_PROBE_HEADER' }));
  });

  it('lists the seed probes first and has every probe the CLI contract names', () => {
    const ids = listProbes().map((p) => p.id);
    expect(ids.slice(0, 4)).toEqual(['cache-held-collective', 'global-mode-race', 'intermittent-oom', 'rank-divergent-allocation']);
    expect(findProbe('rank-divergent-allocation').variants).toEqual(['naive', 'synchronized', 'flag-after-alloc']);
    expect(() => findProbe('nope')).toThrow(expect.objectContaining({ code: 'HR_UNKNOWN_PROBE' }));
  });
});

describe('supervisor event lines', () => {
  it('parses events across chunk boundaries and skips lines that are not events', () => {
    const events: SupervisorEvent[] = [];
    const reader = new EventLineReader((e) => events.push(e));
    reader.push('{"type":"cell-started","variant":"naive","rep');
    reader.push('eat":1}\nnot json\n{"no":"type"}\n{"type":"done"}');
    expect(events).toEqual([{ type: 'cell-started', variant: 'naive', repeat: 1 }]);
    reader.push('\n');
    expect(events.at(-1)).toEqual({ type: 'done' });
  });
});
