import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadNative, type ReplayVariantRequest } from '../../native/index';
import { batchedReplay, peakDiagnostics, replayForEditor, workspaceSite } from '../../server/src/replay/lsp';

const snapshot = path.join(__dirname, '..', 'fixtures', 'snapshots', 'llm__default.pickle.gz');

describe('replay in the editor', () => {
  it('maps the innermost frame inside a workspace folder to a file URI and 0-based line', () => {
    const frames = [
      { filename: '/venv/lib/python3.12/site-packages/torch/nn/functional.py', line: 3504, name: 'cross_entropy' },
      { filename: '/srv/train/snapshot_workload.py', line: 19, name: '<module>' },
    ];
    expect(workspaceSite(frames, ['/srv/train'])).toEqual({ uri: 'file:///srv/train/snapshot_workload.py', line: 18, name: '<module>' });
    expect(workspaceSite(frames, ['/elsewhere'])).toBeNull();
    // A folder that is only a prefix of the file's directory name is not a match.
    expect(workspaceSite(frames, ['/srv/tra'])).toBeNull();
  });

  it('replays variants with timelines and the sites holding memory at the peak', async () => {
    const result = await replayForEditor(
      { uri: snapshot, variants: [{}, { settings: 'expandable_segments:True' }], timeline: true },
      ['/srv/train'],
    );
    expect(result.variants.map((v) => v.reservedPeakBytes)).toEqual([21_082_669_056, 18_706_595_840]);
    const own = result.variants[0]!;
    expect(own.timeline!.reservedBytes).toHaveLength(result.source.events);
    expect(Math.max(...own.timeline!.allocatedBytes)).toBe(own.allocatedPeakBytes);
    expect(own.peakSites.length).toBeGreaterThan(0);
    const total = own.peakSites.reduce((sum, s) => sum + s.bytes, 0);
    expect(total).toBeLessThanOrEqual(own.allocatedPeakBytes);
    // The training script's own line that computes the loss holds the 1 GB logits buffers.
    const inScript = own.peakSites.filter((s) => s.workspaceSite?.uri === 'file:///srv/train/snapshot_workload.py');
    expect(inScript.length).toBeGreaterThan(0);

    const diagnostics = peakDiagnostics(own, 'llm__default.pickle.gz');
    const marks = diagnostics.get('file:///srv/train/snapshot_workload.py')!;
    expect(marks.length).toBeGreaterThan(0);
    expect(marks[0]!.source).toBe('headroom-replay');
    expect(marks[0]!.message).toMatch(/live here at the peak .* in llm__default\.pickle\.gz/);
    // Bytes of every stack through the same line are summed into one marker per line.
    expect(new Set(marks.map((d) => d.range.start.line)).size).toBe(marks.length);
  });

  it('decodes a snapshot once for requests that arrive together, and gives each its own variants', async () => {
    const calls: ReplayVariantRequest[][] = [];
    const replay = batchedReplay((file, variants) => {
      calls.push(variants);
      return loadNative().replaySnapshot(file, { variants, peakSites: 5 });
    });
    const [recorded, whatIfs] = await Promise.all([
      replayForEditor({ uri: snapshot, variants: [{}], timeline: true }, [], replay),
      replayForEditor({ uri: snapshot, variants: [{ settings: 'expandable_segments:True' }, { settings: 'max_split_size_mb:64' }], timeline: false }, [], replay),
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.map((v) => v.timeline)).toEqual([true, false, false]);
    expect(recorded.variants.map((v) => v.reservedPeakBytes)).toEqual([21_082_669_056]);
    expect(recorded.variants[0]!.timeline!.reservedBytes).toHaveLength(51_093);
    expect(whatIfs.variants.map((v) => [v.settings, v.reservedPeakBytes, v.timeline])).toEqual([
      ['expandable_segments:True', 18_706_595_840, null],
      ['max_split_size_mb:64', 44_107_300_864, null],
    ]);
  });
});
