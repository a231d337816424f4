import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadNative, type ReplayVariantRequest } from '../../native/index';
import { batchedReplay, peakDiagnostics, replayForEditor, workspaceSite } from '../../server/src/replay/lsp';
import { tempDir } from '../support/tempDir';

const snapshot = path.join(__dirname, '..', 'fixtures', 'snapshots', 'llm__default.pickle.gz');

describe('replay in the editor', () => {
  // A workspace on this machine holding the script a snapshot recorded elsewhere (under /srv/train).
  const workspace = tempDir('headroom-replay-ws-');
  writeFileSync(path.join(workspace, 'snapshot_workload.py'), '');
  mkdirSync(path.join(workspace, 'torch', 'nn'), { recursive: true });
  writeFileSync(path.join(workspace, 'torch', 'nn', 'functional.py'), '');
  const scriptUri = pathToFileURL(path.join(workspace, 'snapshot_workload.py')).href;

  it('maps the innermost user frame to the workspace file with the same trailing path, 0-based line', () => {
    const frames = [
      { filename: '/venv/lib/python3.12/site-packages/torch/nn/functional.py', line: 3504, name: 'cross_entropy' },
      { filename: '/srv/train/snapshot_workload.py', line: 19, name: '<module>' },
    ];
    // The library frame is skipped even though the workspace has a torch/nn/functional.py.
    expect(workspaceSite(frames, [workspace])).toEqual({ uri: scriptUri, line: 18, name: '<module>' });
    expect(workspaceSite(frames, [path.join(workspace, 'torch')])).toBeNull();
  });

  it('replays variants with timelines and the sites holding memory at the peak', async () => {
    const result = await replayForEditor(
      { uri: snapshot, variants: [{}, { settings: 'expandable_segments:True' }], timeline: true },
      [workspace],
    );
    expect(result.variants.map((v) => v.reservedPeakBytes)).toEqual([21_082_669_056, 18_706_595_840]);
    const own = result.variants[0]!;
    expect(own.timeline!.reservedBytes).toHaveLength(result.source.events);
    expect(Math.max(...own.timeline!.allocatedBytes)).toBe(own.allocatedPeakBytes);
    expect(own.peakSites.length).toBeGreaterThan(0);
    const total = own.peakSites.reduce((sum, s) => sum + s.bytes, 0);
    expect(total).toBeLessThanOrEqual(own.allocatedPeakBytes);
    // The training script's own line that computes the loss holds the 1 GB logits buffers.
    const inScript = own.peakSites.filter((s) => s.workspaceSite?.uri === scriptUri);
    expect(inScript.length).toBeGreaterThan(0);

    const diagnostics = peakDiagnostics(own, 'llm__default.pickle.gz');
    const marks = diagnostics.get(scriptUri)!;
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
