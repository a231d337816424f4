/**
 * Remote targets in a real workbench: the 127.0.0.1 ssh target (Debian's sshd, started by
 * scripts/start-test-hosts.sh) is added to the targets file, "Test Connection…" reports what it
 * offers, and "Run Reproducer…" runs rank-divergent-allocation there on CPU PyTorch with gloo and
 * shows the outcome matrix: the naive and flag-after-alloc variants hang, synchronized completes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { hostsUnavailable, startTestHosts, type TestHosts } from '../integration/remote-hosts';
import { Workbench, repoRoot } from './workbench';

const skip = hostsUnavailable();
const WAIT_MS = 240_000;

describe.skipIf(skip !== undefined)('Headroom remote targets in code-server', () => {
  let wb: Workbench;
  let hosts: TestHosts;
  let target: string;

  beforeAll(async () => {
    hosts = startTestHosts();
    target = `ssh:${hosts.sshHost}`;
    wb = await Workbench.start({ name: 'remote', workspace: path.join(repoRoot, 'test', 'fixtures', 'workspace') });
    // The workbench points XDG_CONFIG_HOME at <its temp dir>/xdg-config, where the server looks for
    // the targets file on every request: adding the target is writing its entry.
    const dir = path.join(path.dirname(wb.workspaceDir), 'xdg-config', 'headroom');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'targets.json'), JSON.stringify({ [target]: { sshConfig: hosts.sshConfig, python: hosts.python } }));
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  const pickRow = async (text: string): Promise<void> => {
    const row = wb.quickInputRows.filter({ hasText: text }).first();
    await row.waitFor({ state: 'visible', timeout: WAIT_MS });
    await row.click();
  };

  it('tests the connection to the 127.0.0.1 ssh target', async () => {
    onTestFailed(async () => void (await wb.screenshot('test-connection-failure')));
    await wb.runCommand('Headroom: Test Connection…');
    await pickRow(target);
    const message = wb.page.locator('.notification-list-item-message', { hasText: `${target} (` }).first();
    await message.waitFor({ state: 'visible', timeout: WAIT_MS });
    const text = await message.innerText();
    expect(text).toMatch(/Python 3\.\d+\.\d+, torch \d+\.\d+/);
    expect(text).toContain('cpu, no accelerator');
    expect(text).toContain('backends gloo');
    expect(text).toContain('C compiler present');
    await wb.screenshot('test-connection');
  });

  it('runs rank-divergent-allocation on the ssh target and shows the matrix', async () => {
    onTestFailed(async () => void (await wb.screenshot('run-failure')));
    await wb.runCommand('Headroom: Run Reproducer…');
    await pickRow('rank-divergent-allocation');
    // Variants: all three are picked by default; accept.
    await wb.quickInputRows.filter({ hasText: 'flag-after-alloc' }).first().waitFor({ state: 'visible', timeout: WAIT_MS });
    await wb.quickInput.press('Enter');
    // Repeats: the default 1.
    await wb.page.locator('.quick-input-widget', { hasText: 'repeats per variant' }).waitFor({ state: 'visible', timeout: WAIT_MS });
    await wb.quickInput.press('Enter');
    await pickRow(target);

    const view = wb.webview();
    await view.locator('h1', { hasText: `Run rank-divergent-allocation on ${target}` }).waitFor({ state: 'visible', timeout: WAIT_MS });
    await view.locator('p.summary', { hasText: 'finished · 3 of 3 cells' }).waitFor({ state: 'visible', timeout: WAIT_MS });
    expect(await view.locator('.outcome-hang').count()).toBe(2);
    expect(await view.locator('.outcome-completed').count()).toBe(1);
    await wb.screenshot('run-matrix');
  });
});
