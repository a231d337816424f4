/**
 * "Headroom: Triage Selection" in a real workbench: the user selects the traceback in an open log
 * editor and runs the command; the verdict shows in the results webview, and the error lands at the
 * innermost train.py frame of the selected traceback, which the Problems panel navigates to.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { formatBytes } from '../../server/src/format';
import { Workbench, repoRoot } from './workbench';

const fixtureWorkspace = path.join(repoRoot, 'test', 'fixtures', 'workspace');
const logLines = readFileSync(path.join(fixtureWorkspace, 'oom.log'), 'utf8').split('\n');
/** The selection starts at the traceback (line 2, after the run's header line) and runs to the end. */
const firstLine = logLines.findIndex((l) => l.startsWith('Traceback')) + 1;
const selected = logLines.slice(firstLine - 1).join('\n');

/** The innermost train.py frame of the selected traceback: where the error belongs. */
function innermostTrainFrame(): number {
  const frames = [...selected.matchAll(/File "[^"]*\/train\.py", line (\d+), in \S+/g)];
  const last = frames.at(-1);
  if (!last) throw new Error('the selected part of oom.log has no train.py frame');
  return Number(last[1]);
}

describe('Headroom: Triage Selection in code-server', () => {
  let wb: Workbench;

  beforeAll(async () => {
    wb = await Workbench.start({ name: 'triage-selection', workspace: fixtureWorkspace });
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  it('triages the traceback selected in the log editor', async () => {
    onTestFailed(async () => void (await wb.screenshot('failure')));
    expect(firstLine).toBeGreaterThan(1);

    await wb.openFile('oom.log');
    await wb.goToLine(firstLine);
    // Select from the traceback's first line to the end of the log, as a user would with the keyboard.
    await wb.page.keyboard.press('Control+Shift+End');
    await wb.page.locator('#status\\.editor\\.selection', { hasText: `(${selected.length} selected)` }).waitFor({ state: 'visible' });

    await wb.runCommand('Headroom: Triage Selection');

    const view = wb.webview();
    const verdict = view.locator('section.verdict').first();
    await verdict.waitFor({ state: 'visible' });
    expect(await view.locator('h1').innerText()).toBe('Triage: selection in oom.log');
    expect(await view.locator('section.verdict').count()).toBe(1);
    expect(await verdict.getAttribute('data-kind')).toBe('catchable-oom');
    expect(await verdict.locator('h2').innerText()).toContain('cuda · device 0');
    // The figures the user sees are the selection's own, in the same 1024-based units.
    const requested = /Tried to allocate ([\d.]+ [KMGT]iB)/.exec(selected)?.[1];
    expect(requested).toBe(formatBytes(32 * 2 ** 30));
    const cell = (label: string) => verdict.locator('vscode-table-row', { hasText: label }).locator('vscode-table-cell').nth(1).innerText();
    expect(await cell('Requested')).toBe(requested);
    expect(await cell('Device total')).toBe(/total capacity of ([\d.]+ [KMGT]iB)/.exec(selected)?.[1]);
    expect(await cell('Free on device')).toBe(/of which ([\d.]+ [KMGT]iB) is free/.exec(selected)?.[1]);
    // The user's frames, innermost first, mapped to the workspace's train.py (a link in the panel).
    const frameLine = innermostTrainFrame();
    expect(await verdict.locator('ul.frames li').first().innerText()).toMatch(new RegExp(`train\\.py:${frameLine} in forward$`));

    await wb.showProblems();
    await expect
      .poll(() => wb.readProblems(), { timeout: 60_000 })
      .toContainEqual(
        expect.objectContaining({ file: 'train.py', severity: 'Error', source: 'Headroom', code: 'catchable-oom', line: frameLine }),
      );
    const problems = await wb.readProblems();
    const error = problems.find((p) => p.severity === 'Error' && p.file === 'train.py');
    expect(error?.message).toContain(`${requested} requested`);
    await wb.screenshot('verdict');

    // The diagnostic takes the user to the line: opening it shows train.py with the cursor there.
    await wb.problemRow(error!.message.slice(0, 40)).dblclick();
    await wb.page.locator('.tabs-container .tab.active', { hasText: 'train.py' }).waitFor({ state: 'visible' });
    await wb.cursorAt(frameLine);
    await wb.screenshot('frame');
  });
});
