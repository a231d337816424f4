/**
 * OOM-risk analysis in a real workbench: opening a training script (full fine-tuning of
 * Qwen2.5-7B with accelerate at 8,192 tokens, from test/fixtures/scripts) shows the per-card plan as
 * a CodeLens on the model line, the breakdown in its hover, and HR001 (plan over capacity) in
 * Problems; the HR001 quick fix, taken with Ctrl+. as a user would, inserts gradient
 * checkpointing, and the lens and the diagnostic follow the edit.
 *
 * The figures the editor must show come from `headroom analyze --json` on the same text, run from
 * the installed extension (the same build as the server under test), so the test checks that the
 * editor surfaces the analysis, not the planner's numbers (test/unit covers those).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { formatBytes } from '../../server/src/format';
import { Workbench, repoRoot } from './workbench';
import { tempDir } from '../support/tempDir';

const SCRIPT = 'accelerate_qwen.py';
const scriptSource = path.join(repoRoot, 'test', 'fixtures', 'scripts', SCRIPT);
const original = readFileSync(scriptSource, 'utf8');
const FIX_TITLE = 'HR001: Enable gradient checkpointing';
const INSERTED = 'model.gradient_checkpointing_enable()';

interface Analysis {
  plan: { device: string; capacityBytes: number; perCardBytes: number; line: number } | null;
  findings: Array<{ rule: string; line: number; message: string; fix: string | null }>;
}

/** `headroom analyze --json` of this text, written to a file of the same name, by the CLI in `extensionDir`. */
function analyze(extensionDir: string, text: string): Analysis {
  const file = path.join(tempDir('hr-e2e-analysis-'), SCRIPT);
  writeFileSync(file, text);
  const out = execFileSync(process.execPath, [path.join(extensionDir, 'dist', 'cli.js'), 'analyze', file, '--json'], { encoding: 'utf8' });
  const parsed = JSON.parse(out) as Analysis | Analysis[];
  return Array.isArray(parsed) ? parsed[0]! : parsed;
}

/** The CodeLens title for a plan, in the form "~X GiB/card of Y GiB (DEVICE), Z%". */
function lensFor(plan: NonNullable<Analysis['plan']>): string {
  const pct = Math.round((plan.perCardBytes / plan.capacityBytes) * 100);
  return `~${formatBytes(plan.perCardBytes)}/card of ${formatBytes(plan.capacityBytes)} (${plan.device}), ${pct}%`;
}

describe('OOM-risk analysis of a training script in code-server', () => {
  let wb: Workbench;
  let before: Analysis;
  let after: Analysis;
  let modelLine: number;
  let fixed: string;

  beforeAll(async () => {
    wb = await Workbench.start({
      name: 'analysis',
      workspace: path.join(repoRoot, 'test', 'fixtures', 'workspace'),
      files: { [SCRIPT]: scriptSource },
    });
    const extensionDir = await wb.installedExtensionDir();
    before = analyze(extensionDir, original);
    modelLine = before.plan?.line ?? 0;
    const lines = original.split('\n');
    lines.splice(modelLine, 0, INSERTED);
    fixed = lines.join('\n');
    after = analyze(extensionDir, fixed);
  });

  afterAll(async () => {
    await wb?.dispose();
  });

  it('has a fixture whose plan is over capacity with a checkpointing fix', () => {
    // Guards the fixture: the editor assertions below mean something only if the analysis finds
    // HR001 on the model line, and checkpointing lowers the plan.
    expect(before.plan).not.toBeNull();
    expect(original.split('\n')[modelLine - 1]).toMatch(/^model = AutoModelForCausalLM\.from_pretrained\(/);
    expect(before.findings).toContainEqual(expect.objectContaining({ rule: 'HR001', line: modelLine }));
    expect(before.plan!.perCardBytes).toBeGreaterThan(before.plan!.capacityBytes);
    expect(after.plan!.perCardBytes).toBeLessThan(before.plan!.perCardBytes);
  });

  it('shows the plan as a CodeLens and HR001 as a warning with its rule id', async () => {
    onTestFailed(async () => void (await wb.screenshot('diagnostic-failure')));
    await wb.openFile(SCRIPT);
    await wb.waitForQuiescent();

    const lens = lensFor(before.plan!);
    expect(lens).toMatch(/^~\d+\.\d{2} [KMGT]iB\/card of \d+\.\d{2} GiB \(H100-80GB\), \d+%$/);
    await wb.activeEditor.locator('.codelens-decoration', { hasText: lens }).waitFor({ state: 'visible' });
    expect(await wb.codeLenses()).toEqual([lens]);

    await wb.showProblems();
    const hr001 = before.findings.find((f) => f.rule === 'HR001')!;
    await expect
      .poll(() => wb.readProblems(), { timeout: 60_000 })
      .toContainEqual(expect.objectContaining({ file: SCRIPT, severity: 'Warning', source: 'Headroom', code: 'HR001', line: modelLine }));
    const problem = (await wb.readProblems()).find((p) => p.code === 'HR001')!;
    expect(problem.message).toBe(`${hr001.message} Fix: ${hr001.fix}`);
    // The rule id is a link to the rule's documentation.
    expect(await wb.problemRow(hr001.message.slice(0, 40)).locator('.marker-code').innerText()).toBe('HR001');
    await wb.screenshot('diagnostic');
  });

  it('shows the breakdown when hovering the model line', async () => {
    onTestFailed(async () => void (await wb.screenshot('hover-failure')));
    await wb.activeEditor.locator('.view-line', { hasText: 'from_pretrained' }).locator('span', { hasText: 'from_pretrained' }).last().hover();
    const hover = wb.page.locator('.monaco-hover', { hasText: 'Headroom memory plan' }).first();
    await hover.waitFor({ state: 'visible' });
    const text = await hover.innerText();
    expect(text).toContain(`Headroom memory plan for ${before.plan!.device}`);
    expect(text).toContain(formatBytes(before.plan!.perCardBytes));
    await wb.screenshot('hover');
    await wb.page.keyboard.press('Escape');
  });

  it('applies the quick fix with Ctrl+. and the plan follows the edit', async () => {
    onTestFailed(async () => void (await wb.screenshot('quick-fix-failure')));
    await wb.goToLine(modelLine);
    await wb.page.keyboard.press('Control+.');
    // The menu opens with the preferred fix focused; Enter applies it (the menu blocks the pointer
    // until the mouse moves, so a keyboard user's path is also the reliable one).
    const action = wb.page.locator('.action-widget .monaco-list-row.action.focused', { hasText: FIX_TITLE });
    await action.waitFor({ state: 'visible' });
    await wb.screenshot('quick-fix-menu');
    await wb.page.keyboard.press('Enter');

    // The edit is in the editor: the call on the line after the model's construction.
    await wb.activeEditor.locator('.view-line', { hasText: INSERTED }).waitFor({ state: 'visible' });
    const lines = await wb.editorLines();
    expect(lines[modelLine]).toBe(INSERTED);
    expect(lines.length).toBe(fixed.split('\n').length);

    // The server re-analyzed the edited buffer: the lens and the warning now describe the fixed script.
    const lens = lensFor(after.plan!);
    await wb.activeEditor.locator('.codelens-decoration', { hasText: lens }).waitFor({ state: 'visible' });
    const hr001 = after.findings.find((f) => f.rule === 'HR001');
    if (hr001) {
      await expect
        .poll(async () => (await wb.readProblems()).find((p) => p.code === 'HR001')?.message, { timeout: 60_000 })
        .toBe(`${hr001.message} Fix: ${hr001.fix}`);
    } else {
      await expect.poll(async () => (await wb.readProblems()).filter((p) => p.code === 'HR001'), { timeout: 60_000 }).toEqual([]);
    }
    await wb.screenshot('quick-fix-applied');

    // Saved, the file on disk is the fixed script.
    await wb.page.keyboard.press('Control+s');
    await wb.page.locator('.tabs-container .tab.active:not(.dirty)', { hasText: SCRIPT }).waitFor({ state: 'visible' });
    // A read right after the tab turns clean once saw an empty file (the write still landing): wait for the content.
    await expect.poll(() => readFile(path.join(wb.workspaceDir, SCRIPT), 'utf8'), { timeout: 60_000 }).toBe(fixed);
  });
});
