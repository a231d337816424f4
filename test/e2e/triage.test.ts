/**
 * "Headroom: Triage Log…" in a real workbench: the packaged extension triages the fixture OOM log,
 * the verdict shows in the results webview, and the Problems panel points at the failing line of
 * train.py, which the traceback names by a path from another machine.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { Workbench, repoRoot } from './workbench';

const fixtureWorkspace = path.join(repoRoot, 'test', 'fixtures', 'workspace');
const log = readFileSync(path.join(fixtureWorkspace, 'oom.log'), 'utf8');
const trainPy = readFileSync(path.join(fixtureWorkspace, 'train.py'), 'utf8').split('\n');

/** The innermost train.py frame of the traceback: where the diagnostic belongs. */
function innermostTrainFrame(): { line: number; code: string } {
  const frames = [...log.matchAll(/File "[^"]*\/train\.py", line (\d+), in \S+\n {4}(.*)/g)];
  const last = frames.at(-1);
  if (!last) throw new Error('oom.log has no train.py frame');
  return { line: Number(last[1]), code: last[2]!.trim() };
}

describe('Headroom: Triage Log… in code-server', () => {
  let wb: Workbench;

  beforeAll(async () => {
    wb = await Workbench.start({ name: 'triage', workspace: fixtureWorkspace });
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  it('has a log whose frames match train.py', () => {
    // Guards the fixture itself: the end-to-end assertions below are only meaningful if the log's
    // line numbers point at the code it quotes.
    const frame = innermostTrainFrame();
    expect(trainPy[frame.line - 1]?.trim()).toBe(frame.code);
  });

  it('starts the server when a Python file opens and reports it quiescent', async () => {
    onTestFailed(async () => void (await wb.screenshot('startup-failure')));
    await wb.openFile('train.py');
    await wb.waitForQuiescent();
  });

  it('shows the verdict in the webview and a diagnostic at the failing line of train.py', async () => {
    onTestFailed(async () => void (await wb.screenshot('triage-failure')));
    const logPath = path.join(wb.workspaceDir, 'oom.log');

    await wb.runCommand('Headroom: Triage Log…');
    await wb.answerFileDialog(logPath);

    const view = wb.webview();
    const verdict = view.locator('section.verdict').first();
    await verdict.waitFor({ state: 'visible' });
    expect(await view.locator('h1').innerText()).toContain(logPath);
    expect(await verdict.getAttribute('data-kind')).toBe('catchable-oom');
    expect(await verdict.locator('.kind').innerText()).toBe('catchable-oom');
    // The sizes the user sees are the log's own figures, formatted back the same way.
    const requested = /Tried to allocate ([\d.]+ [KMGT]iB)/.exec(log)?.[1];
    const capacity = /total capacity of ([\d.]+ [KMGT]iB)/.exec(log)?.[1];
    expect(requested).toBe('32.00 GiB');
    expect(await verdict.locator('vscode-table-row', { hasText: 'Requested' }).locator('vscode-table-cell').nth(1).innerText()).toBe(requested);
    expect(await verdict.locator('vscode-table-row', { hasText: 'Device total' }).locator('vscode-table-cell').nth(1).innerText()).toBe(capacity);

    await wb.showProblems();
    const frame = innermostTrainFrame();
    await expect
      .poll(() => wb.readProblems(), { timeout: 60_000 })
      .toContainEqual(expect.objectContaining({ file: 'train.py', severity: 'Error', source: 'Headroom', line: frame.line }));
    const problems = await wb.readProblems();
    const error = problems.find((p) => p.severity === 'Error' && p.source === 'Headroom');
    expect(error?.message).toContain(`${requested} requested`);

    // The evidence for a reviewer and the CI artifact: webview and Problems panel in one frame.
    await wb.screenshot('verdict');
  });
});
