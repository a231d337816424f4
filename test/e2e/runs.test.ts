/**
 * "Headroom: Run Reproducer…" in a real workbench, on this machine: rank-divergent-allocation with
 * two ranks of Debian's CPU PyTorch over gloo (headroom.python = /usr/bin/python3). The naive
 * variant hangs for real (one rank's allocation fails before the collective the other rank waits
 * in) and the watchdog calls it with both ranks' stacks; the synchronized variant (ranks agree on an
 * ok flag first) completes. The outcome matrix shows in the results webview and the Runs view lists
 * the finished run.
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { Workbench, repoRoot } from './workbench';

const PYTHON = '/usr/bin/python3';
const PROBE = 'rank-divergent-allocation';
const VARIANTS = ['naive', 'synchronized'];
/** A hang is called after a no-progress window plus stack collection; torch's import on a loaded 2-core machine is slow. */
const RUN_TIMEOUT_MS = 280_000;

function torchMissing(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import torch.distributed as d; assert d.is_gloo_available()'], { encoding: 'utf8', timeout: 120_000 });
  return probe.status === 0 ? undefined : `${PYTHON} has no PyTorch with gloo (Debian python3-torch): ${probe.stderr.trim().split('\n').at(-1) ?? ''}`;
}

const skip = torchMissing();

describe.skipIf(skip !== undefined)('Headroom: Run Reproducer… on the local target in code-server', () => {
  let wb: Workbench;

  beforeAll(async () => {
    wb = await Workbench.start({
      name: 'runs',
      workspace: path.join(repoRoot, 'test', 'fixtures', 'workspace'),
      userSettings: { 'headroom.python': PYTHON },
    });
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  it('runs naive and synchronized once each and shows hang vs completed in the matrix', async () => {
    onTestFailed(async () => {
      await wb.screenshot('run-failure');
      await wb.saveWebviewText('run-failure');
    });
    await wb.runCommand('Headroom: Run Reproducer…');
    await wb.pickRow(PROBE);

    // Variants: every variant starts picked; leave only naive and synchronized.
    const flagAfterAlloc = wb.quickInputRows.filter({ hasText: 'flag-after-alloc' }).first();
    await flagAfterAlloc.waitFor({ state: 'visible' });
    await flagAfterAlloc.click();
    await wb.page.locator('.quick-input-widget .quick-input-list [aria-checked="true"]').nth(VARIANTS.length - 1).waitFor({ state: 'visible' });
    const checked = await wb.page
      .locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-checked="true"]')
      .evaluateAll((rows) => rows.map((row) => row.querySelector('.label-name')?.textContent ?? row.textContent ?? ''));
    expect(checked.map((t) => t.trim()).sort()).toEqual([...VARIANTS].sort());
    await wb.quickInput.press('Enter');

    // Repeats per variant: 1.
    await wb.page.locator('.quick-input-widget', { hasText: 'repeats per variant' }).waitFor({ state: 'visible' });
    await wb.quickInput.fill('1');
    await wb.quickInput.press('Enter');

    // With no remote target known the run goes to `local` without asking; on a machine whose
    // ~/.ssh/config lists hosts, the target picker shows and `local` is picked. The panel opens when
    // the first cell ends (naive: a hang, after the no-progress window).
    const view = wb.webview();
    const heading = view.locator('h1', { hasText: `Run ${PROBE} on local` });
    const localRow = wb.quickInputRow('local');
    await expect
      .poll(
        async () => {
          if (await localRow.isVisible()) await localRow.click();
          return heading.isVisible();
        },
        { timeout: RUN_TIMEOUT_MS },
      )
      .toBe(true);

    await view.locator('p.summary', { hasText: `finished · ${VARIANTS.length} of ${VARIANTS.length} cells · 2 rank(s)` }).waitFor({
      state: 'visible',
      timeout: RUN_TIMEOUT_MS,
    });
    // The outcome matrix is the panel's first table (each cell's metrics table follows under "Cells").
    const matrix = await view.locator('vscode-table').first().locator('vscode-table-row').evaluateAll((rows) =>
      rows.map((row) => [row.children[0]?.textContent ?? '', row.children[1]?.querySelector('.outcome')?.className ?? '', row.children[2]?.textContent ?? '']),
    );
    expect(matrix).toEqual([
      ['naive', 'outcome outcome-hang', '1 hang'],
      ['synchronized', 'outcome outcome-completed', '1 completed'],
    ]);
    // The hang comes with every rank's stack and names the rank that diverged.
    const naive = view.locator('vscode-collapsible.cell[title^="naive #1:"]');
    expect(await naive.getAttribute('title')).toMatch(/^naive #1: hang in [\d.]+ s \(rank \d diverged\)$/);
    // Each rank's stacks (Python faulthandler dumps taken at the hang) are in the cell, headed by the rank.
    const rankHeadings = await naive.locator('h4, vscode-collapsible[title^="Rank "]').evaluateAll((elements) =>
      elements.map((e) => e.getAttribute('title') ?? e.textContent ?? ''),
    );
    expect(new Set(rankHeadings.map((t) => /^Rank (\d+)\b/.exec(t)?.[1]).filter((r) => r !== undefined))).toEqual(new Set(['0', '1']));
    const stacks = await naive.locator('pre').allTextContents();
    expect(stacks.filter((stack) => stack.includes('rank_divergent_allocation.py')).length).toBeGreaterThanOrEqual(2);
    await wb.screenshot('matrix');
  });

  it('lists the finished run in the Runs view', async () => {
    onTestFailed(async () => void (await wb.screenshot('runs-view-failure')));
    await wb.runCommand('Headroom: Focus on Runs View');
    const row = wb.page.locator('.pane', { hasText: 'Runs' }).locator('.monaco-list-row', { hasText: `${PROBE} · local` }).first();
    await row.waitFor({ state: 'visible' });
    expect(await row.innerText()).toContain(`finished · ${VARIANTS.length}/${VARIANTS.length} cells`);
    expect(await wb.page.locator('.pane', { hasText: 'Runs' }).locator('.monaco-list-row').count()).toBe(1);

    // A click on the run reopens its matrix from the store once the panel is gone.
    await wb.runCommand('View: Close All Editors');
    await wb.page.locator('iframe.webview').waitFor({ state: 'detached' });
    await row.click();
    const view = wb.webview();
    await view.locator('h1', { hasText: `Run ${PROBE} on local` }).waitFor({ state: 'visible' });
    expect(await view.locator('p.summary').innerText()).toMatch(new RegExp(`^finished · ${VARIANTS.length} of ${VARIANTS.length} cells`));
    await wb.screenshot('runs-view');
  });
});
