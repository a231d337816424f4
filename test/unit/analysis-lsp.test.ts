import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { analyzeCommand } from '../../server/src/analysis/cli';
import type { CodeAction, CodeLens, CodeLensParams, CodeActionParams, Diagnostic, Hover, HoverParams } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { register } from '../../server/src/analysis/lsp';
import { ParsedDocument } from '../../server/src/analysis/parser';
import type { ServerContext } from '../../server/src/context';
import { DiagnosticsStore } from '../../server/src/diagnostics';
import { normalizeSettings } from '../../server/src/settings';
import { fixture } from './analysis-helpers';

/** A connection and a document manager holding only the members the analysis feature uses. */
function fakeServer(device: string) {
  const published = new Map<string, Diagnostic[]>();
  const handlers: { action?: (p: CodeActionParams) => CodeAction[]; lens?: (p: CodeLensParams) => Promise<CodeLens[]>; hover?: (p: HoverParams) => Promise<Hover | null> } = {};
  const changeListeners: Array<(e: { document: TextDocument }) => void> = [];
  const pending: Array<Promise<unknown>> = [];
  const ctx = {
    connection: {
      onCodeLens: (h: typeof handlers.lens) => void (handlers.lens = h),
      onHover: (h: typeof handlers.hover) => void (handlers.hover = h),
      console: { warn: () => undefined },
    },
    documents: {
      onDidChangeContent: (l: (e: { document: TextDocument }) => void) => void changeListeners.push(l),
      onDidClose: () => undefined,
    },
    diagnostics: new DiagnosticsStore((uri, diags) => published.set(uri, diags)),
    settingsFor: async () => normalizeSettings({ device }),
    onSettingsChanged: () => undefined,
    addCodeActionProvider: (h: typeof handlers.action) => void (handlers.action = h),
    workspaceFolders: () => [],
    track: <T>(_label: string, work: () => Promise<T>) => {
      const p = work();
      pending.push(p);
      return p;
    },
  } as unknown as ServerContext;
  register(ctx);
  return {
    handlers,
    published,
    async open(doc: TextDocument): Promise<void> {
      this.change(doc);
      await Promise.all(pending);
    },
    /** Delivers the document without waiting for its analysis. */
    change(doc: TextDocument): void {
      for (const l of changeListeners) l({ document: doc });
    },
  };
}

describe('analysis over LSP', () => {
  it('publishes diagnostics with docs links, a CodeLens, a hover and a quick fix', async () => {
    const { file, text } = fixture('seed003_resident_adamw.py');
    const uri = pathToFileURL(file).href;
    const server = fakeServer('RNGD');
    await server.open(TextDocument.create(uri, 'python', 1, text));

    const diags = server.published.get(uri) ?? [];
    const race = diags.find((d) => d.code === 'HR003');
    expect(race?.codeDescription?.href).toMatch(/docs\/rules\/HR003\.md$/);

    const lenses = await server.handlers.lens!({ textDocument: { uri } });
    expect(lenses[0]?.command?.title).toMatch(/^~\d+\.\d\d GiB\/card of 47\.50 GiB \(RNGD\), \d+%$/);
    const line = lenses[0]!.range.start.line;
    expect(text.split('\n')[line]).toContain('from_pretrained');

    const hover = await server.handlers.hover!({ textDocument: { uri }, position: { line, character: 4 } });
    expect(JSON.stringify(hover?.contents)).toContain('Optimizer states');

    const actions = server.handlers.action!({ textDocument: { uri }, range: race!.range, context: { diagnostics: [race!] } });
    expect(actions[0]?.title).toContain('DEVICE_ALLOC_LOCK');
    expect(actions[0]?.edit?.changes?.[uri]?.length).toBeGreaterThan(1);
  });

  it('answers a CodeLens request that arrives before the first analysis ends, once it ends', async () => {
    // VS Code asks for a document's lenses right after opening it; an empty answer then would stand until an edit.
    const { file, text } = fixture('accelerate_qwen.py');
    const uri = pathToFileURL(file).href;
    const server = fakeServer('H100-80GB');
    server.change(TextDocument.create(uri, 'python', 1, text));
    const lenses = await server.handlers.lens!({ textDocument: { uri } });
    expect(lenses).toHaveLength(1);
    expect(lenses[0]?.command?.title).toMatch(/GiB\/card of 79\.10 GiB \(H100-80GB\)/);
  });

  it('reanalyzes after an edit: fixing the conf string clears its diagnostic', async () => {
    const { file, text } = fixture('alloc_conf_problems.py');
    const uri = pathToFileURL(file).href;
    const server = fakeServer('H100-80GB');
    await server.open(TextDocument.create(uri, 'python', 1, text));
    expect((server.published.get(uri) ?? []).some((d) => d.code === 'HR009')).toBe(true);
    const edited = text.replace('expandable_segment:True,max_split_size_mb:10,', '');
    await server.open(TextDocument.create(uri, 'python', 2, edited));
    expect((server.published.get(uri) ?? []).some((d) => d.code === 'HR009')).toBe(false);
  });
});

describe('incremental parsing', () => {
  it('an edited tree equals a fresh parse of the new text', async () => {
    const { text } = fixture('nanogpt_train.py');
    const doc = await ParsedDocument.create('python', text);
    const edits = [
      text.replace('batch_size = 12', 'batch_size = 16'),
      text.replace('batch_size = 12', 'batch_size = 16').replace('import time\n', ''),
      text + '\nprint("done")\n',
      text,
    ];
    for (const next of edits) {
      doc.update(next);
      const fresh = await ParsedDocument.create('python', next);
      expect(doc.tree.rootNode.toString()).toBe(fresh.tree.rootNode.toString());
      fresh.dispose();
    }
    doc.dispose();
  });
});

/** Runs the subcommand in-process and returns what it wrote to stdout. */
async function runAnalyze(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  try {
    const code = await analyzeCommand(args);
    return { code, stdout };
  } finally {
    spy.mockRestore();
  }
}

describe('headroom analyze', () => {
  it('prints the JSON contract per file', async () => {
    const { code, stdout } = await runAnalyze(['test/fixtures/scripts/seed004_skip_collective.py', 'test/fixtures/scripts/hf_llama_from_config.py', '--device', 'H200', '--json']);
    expect(code).toBe(0);
    const reports = JSON.parse(stdout) as Array<{ file: string; plan: null | Record<string, unknown>; findings: Array<Record<string, unknown>> }>;
    expect(reports).toHaveLength(2);
    expect(reports[0]!.plan).toBeNull();
    expect(reports[0]!.findings[0]).toMatchObject({ rule: 'HR005', class: 'rank-divergent-allocation', line: 11 });
    expect(Object.keys(reports[0]!).sort()).toEqual(['file', 'findings', 'plan']);
    expect(Object.keys(reports[0]!.findings[0]!).sort()).toEqual(['class', 'fix', 'line', 'message', 'rule']);
    expect(Object.keys(reports[1]!.plan!).sort()).toEqual(['breakdown', 'capacityBytes', 'device', 'line', 'perCardBytes']);
    expect(reports[1]!.plan).toMatchObject({ device: 'H200', capacityBytes: 150_109_880_320, line: 34 });
    expect(typeof (reports[1]!.plan!['breakdown'] as Record<string, number>)['weights']).toBe('number');
  });

  it('takes the script\'s own arguments after `--`', async () => {
    const file = 'test/fixtures/scripts/hf_llama_from_config.py';
    const plain = JSON.parse((await runAnalyze([file, '--json'])).stdout) as { plan: { perCardBytes: number } };
    const { code, stdout } = await runAnalyze([file, '--json', '--', '--batch-size', '1']);
    expect(code).toBe(0);
    const smaller = JSON.parse(stdout) as { plan: { perCardBytes: number } };
    expect(smaller.plan.perCardBytes).toBeLessThan(plain.plan.perCardBytes);
  });

  it('rejects an unknown device with a coded error', async () => {
    await expect(runAnalyze(['test/fixtures/scripts/nanogpt_train.py', '--device', 'GTX-480'])).rejects.toMatchObject({ code: 'HEADROOM_UNKNOWN_DEVICE' });
  });
});
