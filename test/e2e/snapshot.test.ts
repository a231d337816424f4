/**
 * "Headroom: Open Memory Snapshot…" in a real workbench: the packaged server decodes a real H200
 * snapshot with the native addon shipped in the VSIX, and the webview shows its trace event count,
 * which must equal the count recorded on the GPU (truth.json).
 */
import { copyFile, readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { Workbench, repoRoot } from './workbench';

const snapshotsDir = path.join(repoRoot, 'test', 'fixtures', 'snapshots');
// The smallest of the recorded snapshots, and the one whose run hit caught OOMs.
const snapshotName = 'llm__cap004__default.pickle.gz';

/** The fields of truth.json this test checks (torch.cuda.memory_stats() at the end of the run). */
interface Truth {
  trace_events: number;
  num_ooms: number;
  num_device_alloc: number;
  num_device_free: number;
}

describe('Headroom: Open Memory Snapshot… in code-server', () => {
  let wb: Workbench;

  beforeAll(async () => {
    wb = await Workbench.start({ name: 'snapshot', workspace: path.join(repoRoot, 'test', 'fixtures', 'workspace') });
    await copyFile(path.join(snapshotsDir, snapshotName), path.join(wb.workspaceDir, snapshotName));
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  it('shows the native summary of a real snapshot', async () => {
    onTestFailed(async () => void (await wb.screenshot('failure')));
    const truth = (JSON.parse(await readFile(path.join(snapshotsDir, 'truth.json'), 'utf8')) as Record<string, Truth>)[snapshotName];
    if (!truth) throw new Error(`truth.json has no entry for ${snapshotName}`);

    await wb.runCommand('Headroom: Open Memory Snapshot…');
    await wb.answerFileDialog(path.join(wb.workspaceDir, snapshotName));

    const view = wb.webview();
    const summary = view.locator('p.summary');
    await summary.waitFor({ state: 'visible' });
    expect(await view.locator('h1').innerText()).toContain(snapshotName);
    // Segments still mapped at the end: every cudaMalloc the run made, less every cudaFree.
    const liveSegments = truth.num_device_alloc - truth.num_device_free;
    expect(await summary.innerText()).toContain(
      `${truth.trace_events.toLocaleString('en-US')} trace events on 1 device(s); ${liveSegments} segments at the end`,
    );
    // The first table is the decoder's action counts; the what-if tables follow it.
    const rows = await view.locator('vscode-table').first().locator('vscode-table-row').evaluateAll((elements) =>
      elements.map((row) => [row.children[0]?.textContent ?? '', Number((row.children[1]?.textContent ?? '').replace(/,/g, ''))] as const),
    );
    const counts = new Map(rows);
    // The table's per-action counts agree with what torch.cuda.memory_stats() said on the GPU.
    expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(truth.trace_events);
    expect(counts.get('oom')).toBe(truth.num_ooms);
    expect(counts.get('segment_alloc')).toBe(truth.num_device_alloc);
    expect(counts.get('segment_free')).toBe(truth.num_device_free);

    await wb.screenshot('summary');
  });
});
