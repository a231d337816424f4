/**
 * "Headroom: Open Memory Snapshot…" opens the what-if panel in a real workbench: the packaged
 * native simulator replays a real H200 snapshot (llm__default) under its recorded settings and the
 * what-ifs, and the panel's numbers must agree with what the GPU measured (truth.json): the recorded
 * run's peaks and cudaMalloc count, what the run recorded with expandable_segments:True reached, and,
 * replayed at the capped run's capacity, the first OOM at the very request where the capped run
 * raised its first OOM. The panel also draws the every-event timeline and lists the sites holding
 * memory at the peak.
 *
 * A second snapshot (tf__default from test/fixtures/replay-h200, recorded by record.py) is opened
 * as if recorded in this workspace: its frames name record.py, copied into the workspace, so its
 * sites are links, and a click opens record.py at the line.
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { formatBytes, parseSize } from '../../server/src/format';
import { Workbench, repoRoot } from './workbench';

const snapshotsDir = path.join(repoRoot, 'test', 'fixtures', 'snapshots');
const SNAPSHOT = 'llm__default.pickle.gz';
const CAPPED = 'llm__cap004__default.pickle.gz';
const EXPANDABLE = 'llm__expandable_segments_True.pickle.gz';
const replayH200Dir = path.join(repoRoot, 'test', 'fixtures', 'replay-h200');
const WORKSPACE_SNAPSHOT = 'tf__default.pickle.gz';
/** Where record.py was when the tf__ snapshots were recorded (the frames' file name). */
const RECORDED_SCRIPT = '/work/main/test/fixtures/replay-h200/record.py';
/** The acceptance bar for every predicted peak. */
const TOLERANCE = 0.01;

interface Truth {
  'allocated_bytes.all.peak': number;
  'reserved_bytes.all.peak': number;
  num_device_alloc: number;
  num_ooms: number;
  cap_bytes?: number;
}

/**
 * Reads a fixture snapshot's trace in Python with an unpickler that refuses every global (the
 * fixtures hold only plain containers), and returns the capped run's first OOM: the index among
 * alloc requests (allocIndex counts them from 0) and the requested size.
 */
function recordedFirstOom(file: string): { allocIndex: number; sizeBytes: number } {
  const script = [
    'import gzip, json, pickle, sys',
    'class Plain(pickle.Unpickler):',
    '    def find_class(self, module, name): raise pickle.UnpicklingError(f"global {module}.{name} refused")',
    'with gzip.open(sys.argv[1]) as f: trace = Plain(f).load()["device_traces"][0]',
    'requests = [e for e in trace if e["action"] in ("alloc", "oom")]',
    'first = next(i for i, e in enumerate(requests) if e["action"] == "oom")',
    'print(json.dumps({"allocIndex": first, "sizeBytes": requests[first]["size"]}))',
  ].join('\n');
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8', timeout: 120_000 })) as { allocIndex: number; sizeBytes: number };
}

/**
 * Writes a copy of a fixture snapshot whose frames name `to` instead of `from`: the same real trace,
 * as if recorded from the workspace's own copy of the script. Plain containers in, the same out.
 */
function relocateFrames(source: string, target: string, from: string, to: string): void {
  const script = [
    'import gzip, pickle, sys',
    'class Plain(pickle.Unpickler):',
    '    def find_class(self, module, name): raise pickle.UnpicklingError(f"global {module}.{name} refused")',
    'src, dst, old, new = sys.argv[1:5]',
    'with gzip.open(src) as f: snapshot = Plain(f).load()',
    'def frames(entry):',
    '    for frame in entry.get("frames", []):',
    '        if frame.get("filename") == old: frame["filename"] = new',
    'for trace in snapshot["device_traces"]:',
    '    for entry in trace: frames(entry)',
    'for segment in snapshot["segments"]:',
    '    for block in segment.get("blocks", []): frames(block)',
    'with gzip.open(dst, "wb") as f: pickle.dump(snapshot, f, protocol=4)',
  ].join('\n');
  execFileSync('python3', ['-c', script, source, target, from, to], { timeout: 120_000 });
}

/** "19.63 GiB" -> bytes (display precision). */
function bytesOf(text: string): number {
  const m = /^([\d.]+) (B|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  const bytes = m ? parseSize(m[1]!, m[2]!) : undefined;
  if (bytes === undefined) throw new Error(`not a size: "${text}"`);
  return bytes;
}

/** Within the bar, and within what two decimals of the displayed unit can say. */
function expectSize(shown: string, truth: number): void {
  const bytes = bytesOf(shown);
  expect(Math.abs(bytes - truth) / truth, `${shown} vs ${truth.toLocaleString('en-US')} bytes`).toBeLessThanOrEqual(TOLERANCE);
}

describe('Headroom: Open Memory Snapshot… what-if panel in code-server', () => {
  let wb: Workbench;
  let truth: Record<string, Truth>;

  beforeAll(async () => {
    truth = JSON.parse(await readFile(path.join(snapshotsDir, 'truth.json'), 'utf8')) as Record<string, Truth>;
    wb = await Workbench.start({
      name: 'replay',
      workspace: path.join(repoRoot, 'test', 'fixtures', 'workspace'),
      files: { [SNAPSHOT]: path.join(snapshotsDir, SNAPSHOT), 'record.py': path.join(replayH200Dir, 'record.py') },
    });
    relocateFrames(path.join(replayH200Dir, WORKSPACE_SNAPSHOT), path.join(wb.workspaceDir, WORKSPACE_SNAPSHOT), RECORDED_SCRIPT, path.join(wb.workspaceDir, 'record.py'));
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  /** The rows of the n-th table of the panel, as cell texts. */
  const tableRows = (n: number): Promise<string[][]> =>
    wb
      .webview()
      .locator('vscode-table')
      .nth(n)
      .locator('vscode-table-row')
      .evaluateAll((rows) =>
        rows.map((row) => {
          const cells: string[] = [];
          for (let i = 0; i < row.children.length; i++) cells.push((row.children[i]?.textContent ?? '').trim());
          return cells;
        }),
      );

  it('replays llm__default and agrees with the H200 runs', async () => {
    onTestFailed(async () => {
      await wb.screenshot('what-if-failure');
      await wb.saveWebviewText('what-if-failure');
    });
    const recorded = truth[SNAPSHOT]!;
    const expandable = truth[EXPANDABLE]!;

    await wb.runCommand('Headroom: Open Memory Snapshot…');
    await wb.answerFileDialog(path.join(wb.workspaceDir, SNAPSHOT));

    const view = wb.webview();
    await view.locator('h2', { hasText: 'What if' }).waitFor({ state: 'visible' });
    expect(await view.locator('h1').innerText()).toContain(SNAPSHOT);
    expect(await view.locator('p', { hasText: 'Recorded allocator settings:' }).innerText()).toBe('Recorded allocator settings: defaults.');

    // Table 0: the decoder's action counts; table 1: the variants.
    const variants = await tableRows(1);
    const header = ['Settings', 'Capacity', 'Reserved peak', 'Allocated peak', 'Reserved − allocated', 'Segments (cudaMalloc)', 'Retries', 'OOMs', 'First OOM'];
    const row = (settings: string): Record<string, string> => {
      const cells = variants.find((r) => r[0] === settings);
      if (!cells) throw new Error(`no variant row "${settings}" in ${JSON.stringify(variants.map((r) => r[0]))}`);
      return Object.fromEntries(header.map((h, i) => [h, cells[i] ?? '']));
    };
    expect(variants.map((r) => r[0])[0]).toBe('(recorded settings)');
    expect(variants.length).toBeGreaterThanOrEqual(2);

    const own = row('(recorded settings)');
    expect(own['Capacity']).toBe('unlimited');
    expectSize(own['Reserved peak']!, recorded['reserved_bytes.all.peak']);
    expectSize(own['Allocated peak']!, recorded['allocated_bytes.all.peak']);
    expect(Number(own['Segments (cudaMalloc)'])).toBe(recorded.num_device_alloc);
    expect(Number(own['OOMs'])).toBe(recorded.num_ooms);
    expect(own['First OOM']).toBe('—');

    // What expandable_segments:True did on the GPU (a separate run of the same seeded program).
    const whatIf = row('expandable_segments:True');
    expectSize(whatIf['Reserved peak']!, expandable['reserved_bytes.all.peak']);
    expect(Number(whatIf['Segments (cudaMalloc)'])).toBe(expandable.num_device_alloc);
    expect(Number(whatIf['OOMs'])).toBe(0);

    // The timeline draws every event (uPlot's canvas), and the peak sites add up to no more than the peak.
    await view.locator('h2:has-text("Allocated and reserved over the trace") + .chart canvas').first().waitFor({ state: 'visible' });
    await view.locator('h2', { hasText: 'Allocation sites holding memory at the peak' }).waitFor({ state: 'visible' });
    const sites = await tableRows(2);
    expect(sites.length).toBeGreaterThan(0);
    const siteBytes = sites.map((s) => bytesOf(s[0]!));
    expect([...siteBytes].sort((a, b) => b - a)).toEqual(siteBytes);
    expect(siteBytes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(recorded['allocated_bytes.all.peak'] * (1 + TOLERANCE));
    // Each site names its innermost frame on the recording host (or says it has none); none of them
    // is in this workspace, so none is a link.
    for (const site of sites) expect(site[2]).toMatch(/^(\/.+:\d+ in \S+|\(no frames recorded\))$/);
    expect(await view.locator('vscode-table').nth(2).locator('a.frame').count()).toBe(0);
    await wb.screenshot('what-if');
  });

  it('replayed at the capped run\'s capacity, fails at the capped run\'s first OOM request', async () => {
    onTestFailed(async () => {
      await wb.screenshot('capacity-failure');
      await wb.saveWebviewText('capacity-failure');
    });
    const cap = truth[CAPPED]!.cap_bytes!;
    const firstOom = recordedFirstOom(path.join(snapshotsDir, CAPPED));
    const view = wb.webview();

    // GiB as typed; the panel multiplies by 2^30, which a double does exactly.
    await view.locator('input.capacity').fill(String(cap / 2 ** 30));
    await view.locator('button.replay-capacity').click();
    await view.locator('vscode-table').nth(2).locator('vscode-table-row', { hasText: formatBytes(cap) }).first().waitFor({ state: 'visible' });

    const capped = (await tableRows(2)).find((r) => r[0] === '(recorded settings)');
    expect(capped?.[1]).toBe(formatBytes(cap));
    expect(Number(capped?.[7])).toBeGreaterThan(0);
    expect(capped?.[8]).toMatch(new RegExp(`^${formatBytes(firstOom.sizeBytes).replace('.', '\\.')} at request #${firstOom.allocIndex} \\(.+:\\d+\\)$`));
    await wb.screenshot('capacity');
  });

  it('opens the workspace file of a peak site on click', async () => {
    onTestFailed(async () => {
      await wb.screenshot('site-click-failure');
      await wb.saveWebviewText('site-click-failure');
    });
    await wb.runCommand('Headroom: Open Memory Snapshot…');
    await wb.answerFileDialog(path.join(wb.workspaceDir, WORKSPACE_SNAPSHOT));
    const view = wb.webview();
    await view.locator('h1', { hasText: WORKSPACE_SNAPSHOT }).waitFor({ state: 'visible' });
    await view.locator('h2', { hasText: 'Allocation sites holding memory at the peak' }).waitFor({ state: 'visible' });

    const link = view.locator('vscode-table').nth(2).locator('a.frame', { hasText: 'record.py:' }).first();
    await link.waitFor({ state: 'visible' });
    const label = await link.innerText();
    const line = Number(/record\.py:(\d+) in /.exec(label)?.[1]);
    expect(line).toBeGreaterThan(0);
    await link.click();
    await wb.page.locator('.tabs-container .tab.active', { hasText: 'record.py' }).waitFor({ state: 'visible' });
    await wb.cursorAt(line);
    await wb.screenshot('site-click');

    // The line also carries the inline marker of what it held at the peak.
    await wb.showProblems();
    await expect
      .poll(async () => (await wb.readProblems()).filter((p) => p.file === 'record.py' && p.line === line).map((p) => [p.severity, p.message]), {
        timeout: 60_000,
      })
      .toContainEqual(['Info', expect.stringMatching(new RegExp(`^[\\d.]+ [KMGT]?i?B live here at the peak .* in ${WORKSPACE_SNAPSHOT.replace(/\./g, '\\.')}$`))]);
  });
});
