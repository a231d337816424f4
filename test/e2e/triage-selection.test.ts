/**
 * "Headroom: Triage Selection" in a real workbench: the user selects the traceback in an open log
 * editor and runs the command; the verdict shows in the results webview, and the error lands at the
 * innermost train.py frame of the selected traceback, which the Problems panel navigates to. A
 * fragmentation traceback's error carries a quick fix: Ctrl+. at that line sets the allocator option
 * at the top of train.py, the entry script.
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

  it('offers the allocator option as a quick fix for a fragmentation traceback', async () => {
    onTestFailed(async () => {
      await wb.screenshot('quick-fix-failure');
      await wb.saveWebviewText('quick-fix-failure');
    });
    const fragmentation = readFileSync(path.join(fixtureWorkspace, 'fragmentation.log'), 'utf8');
    const frameLine = Number([...fragmentation.matchAll(/File "[^"]*\/train\.py", line (\d+), in \S+/g)].at(-1)?.[1]);

    // The first test left train.py open in the results panel's editor group, so the log opens there
    // too and the panel is a background tab when the command runs: a user opening the next log.
    await wb.openFile('fragmentation.log');
    await wb.activeEditor.locator('.view-lines').click();
    await wb.page.keyboard.press('Control+a');
    await wb.page.locator('#status\\.editor\\.selection', { hasText: `(${fragmentation.length} selected)` }).waitFor({ state: 'visible' });
    await wb.runCommand('Headroom: Triage Selection');

    // The server's answer shows first in Problems (published before the reply): the new triage
    // replaced the previous one's error with a fragmentation error at the same frame.
    await wb.showProblems();
    await expect
      .poll(async () => (await wb.readProblems()).filter((p) => p.severity === 'Error').map((p) => [p.file, p.code, p.line]), { timeout: 60_000 })
      .toEqual([['train.py', 'fragmentation', frameLine]]);
    // Then the panel shows the new verdict (the reply reaches the panel moments later). Soft checks:
    // a stale panel fails the test but still lets the quick fix below be checked.
    const view = wb.webview();
    const heading = 'Triage: selection in fragmentation.log';
    await view.locator('h1', { hasText: heading }).waitFor({ state: 'visible', timeout: 30_000 }).catch(() => undefined);
    expect.soft(await view.locator('h1').innerText(), 'the results panel after the second triage').toBe(heading);
    const verdict = view.locator('section.verdict').first();
    expect.soft(await verdict.getAttribute('data-kind')).toBe('fragmentation');
    const reservedUnallocated = /and ([\d.]+ [KMGT]iB) is reserved by PyTorch but unallocated/.exec(fragmentation)?.[1];
    expect
      .soft(await verdict.locator('vscode-table-row', { hasText: 'Reserved but unallocated' }).locator('vscode-table-cell').nth(1).innerText())
      .toBe(reservedUnallocated);
    expect.soft(await verdict.locator('ol.fixes li').first().innerText()).toContain('expandable_segments:True');
    await wb.screenshot('fragmentation-verdict');

    const error = (await wb.readProblems()).find((p) => p.severity === 'Error')!;
    await wb.problemRow(error.message.slice(0, 40)).dblclick();
    await wb.page.locator('.tabs-container .tab.active', { hasText: 'train.py' }).waitFor({ state: 'visible' });
    await wb.cursorAt(frameLine);

    await wb.page.keyboard.press('Control+.');
    const action = wb.page.locator('.action-widget .monaco-list-row.action.focused', {
      hasText: 'Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True in train.py',
    });
    await action.waitFor({ state: 'visible' });
    await wb.screenshot('quick-fix-menu');
    await wb.page.keyboard.press('Enter');

    // The option is set before torch is imported: after the module docstring, above `import torch`.
    const setting = 'os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")';
    await wb.page.keyboard.press('Control+Home');
    await wb.activeEditor.locator('.view-line', { hasText: setting }).waitFor({ state: 'visible' });
    const lines = await wb.editorLines();
    const at = lines.indexOf(setting);
    const docstringEnd = lines.findIndex((l, i) => i > 0 && l.endsWith('"""'));
    expect(docstringEnd).toBeGreaterThan(0);
    expect(lines.indexOf('import os')).toBeGreaterThan(docstringEnd);
    expect(lines.indexOf('import os')).toBeLessThan(at);
    expect(at).toBeLessThan(lines.indexOf('import torch'));
    await wb.screenshot('quick-fix-applied');
  });
});
