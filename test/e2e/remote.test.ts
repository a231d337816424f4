/**
 * Remote targets in a real workbench: the 127.0.0.1 ssh target (Debian's sshd, started by
 * scripts/start-test-hosts.sh) is made known to the server through a targets file named by
 * $HEADROOM_TARGETS_FILE in code-server's environment (which the extension host and the server
 * inherit). "Test Connection…" reports what the host offers, and "Run Reproducer…" runs
 * rank-divergent-allocation there on CPU PyTorch with gloo and shows the outcome matrix: naive and
 * flag-after-alloc hang, synchronized completes. The Runs view lists the run under its target.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { hostsUnavailable, startTestHosts, type TestHosts } from '../integration/remote-hosts';
import { Workbench, repoRoot } from './workbench';
import { tempDir } from '../support/tempDir';

const skip = hostsUnavailable();
const PROBE = 'rank-divergent-allocation';
/** Three cells, two of which are hangs called after the no-progress window, on a loaded 2-core machine. */
const RUN_TIMEOUT_MS = 280_000;

/** What the host's interpreter reports about itself (the ssh host is this machine). */
function interpreterFacts(python: string): { python: string; torch: string } {
  const out = execFileSync(python, ['-c', 'import platform, torch; print(platform.python_version()); print(torch.__version__)'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  const [pythonVersion, torchVersion] = out.trim().split('\n');
  return { python: pythonVersion!, torch: torchVersion! };
}

describe.skipIf(skip !== undefined)('Headroom remote targets in code-server', () => {
  let wb: Workbench;
  let hosts: TestHosts;
  let target: string;

  beforeAll(async () => {
    hosts = startTestHosts();
    target = `ssh:${hosts.sshHost}`;
    const targetsFile = path.join(tempDir('hr-e2e-targets-'), 'targets.json');
    writeFileSync(targetsFile, JSON.stringify({ [target]: { sshConfig: hosts.sshConfig, python: hosts.python } }, null, 2));
    wb = await Workbench.start({
      name: 'remote',
      workspace: path.join(repoRoot, 'test', 'fixtures', 'workspace'),
      env: { HEADROOM_TARGETS_FILE: targetsFile },
    });
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  it('tests the connection to the 127.0.0.1 ssh target', async () => {
    onTestFailed(async () => void (await wb.screenshot('test-connection-failure')));
    const facts = interpreterFacts(hosts.python);
    await wb.runCommand('Headroom: Test Connection…');
    // Only remote targets are offered for a connection test.
    await wb.quickInputRow(target).waitFor({ state: 'visible' });
    expect(await wb.quickInputRow('local').count()).toBe(0);
    await wb.quickInputRow(target).click();

    const message = wb.notification(`${target} (`);
    await message.waitFor({ state: 'visible' });
    const text = await message.innerText();
    expect(text).toContain(`Headroom: ${target} (${os.hostname()}): Python ${facts.python}, torch ${facts.torch}, cpu, no accelerator;`);
    expect(text).toMatch(/; backends [^;]*\bgloo\b/);
    expect(text).toMatch(/; C compiler present$/);
    await wb.screenshot('test-connection');
  });

  it('runs rank-divergent-allocation on the ssh target and shows the matrix', async () => {
    onTestFailed(async () => {
      await wb.screenshot('run-failure');
      await wb.saveWebviewText('run-failure');
    });
    await wb.runCommand('Headroom: Run Reproducer…');
    await wb.pickRow(PROBE);
    // Variants: all three start picked; keep them.
    await wb.quickInputRows.filter({ hasText: 'flag-after-alloc' }).first().waitFor({ state: 'visible' });
    expect(await wb.page.locator('.quick-input-widget .quick-input-list .monaco-list-row[aria-checked="true"]').count()).toBe(3);
    await wb.quickInput.press('Enter');
    // Repeats per variant: 1.
    await wb.page.locator('.quick-input-widget', { hasText: 'repeats per variant' }).waitFor({ state: 'visible' });
    await wb.quickInput.fill('1');
    await wb.quickInput.press('Enter');
    // Where: the picker offers local and the ssh target.
    await wb.quickInputRow('local').waitFor({ state: 'visible' });
    await wb.quickInputRow(target).click();

    const view = wb.webview();
    // The panel opens when the first cell ends (a hang: after the no-progress window).
    await view.locator('h1', { hasText: `Run ${PROBE} on ${target}` }).waitFor({ state: 'visible', timeout: RUN_TIMEOUT_MS });
    await view.locator('p.summary', { hasText: 'finished · 3 of 3 cells · 2 rank(s)' }).waitFor({ state: 'visible', timeout: RUN_TIMEOUT_MS });
    // The host that ran it describes itself.
    expect(await view.locator('p', { hasText: `${os.hostname()}: Python ` }).first().innerText()).toContain('cpu');
    const matrix = await view.locator('vscode-table').first().locator('vscode-table-row').evaluateAll((rows) =>
      rows.map((row) => [row.children[0]?.textContent ?? '', row.children[1]?.querySelector('.outcome')?.className ?? '']),
    );
    expect(new Map(matrix.map(([variant, outcome]) => [variant, outcome]))).toEqual(
      new Map([
        ['naive', 'outcome outcome-hang'],
        ['synchronized', 'outcome outcome-completed'],
        ['flag-after-alloc', 'outcome outcome-hang'],
      ]),
    );
    // The hang's stacks came back from the host, one per rank.
    const naive = view.locator('vscode-collapsible.cell[title^="naive #1:"]');
    expect(await naive.getAttribute('title')).toMatch(/^naive #1: hang in [\d.]+ s \(rank \d diverged\)$/);
    const stacks = await naive.locator('pre').allTextContents();
    expect(stacks.filter((stack) => stack.includes('rank_divergent_allocation.py')).length).toBeGreaterThanOrEqual(2);
    await wb.screenshot('run-matrix');

    await wb.runCommand('Headroom: Focus on Runs View');
    const row = wb.page.locator('.pane', { hasText: 'Runs' }).locator('.monaco-list-row', { hasText: `${PROBE} · ${target}` }).first();
    await row.waitFor({ state: 'visible' });
    expect(await row.innerText()).toContain('finished · 3/3 cells');
    await wb.screenshot('runs-view');
  });
});
