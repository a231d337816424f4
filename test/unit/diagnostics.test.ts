import { describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver';
import { DiagnosticsStore } from '../../server/src/diagnostics';

const diag = (message: string): Diagnostic => ({ message, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } });

describe('DiagnosticsStore', () => {
  it('publishes the union of every source for a URI, so one feature never erases another', () => {
    const published = new Map<string, string[]>();
    const store = new DiagnosticsStore((uri, d) => published.set(uri, d.map((x) => x.message)));
    store.set('analysis', 'file:///a.py', [diag('plan')]);
    store.set('triage', 'file:///a.py', [diag('oom')]);
    expect(published.get('file:///a.py')).toEqual(['plan', 'oom']);
    store.clearSource('triage');
    expect(published.get('file:///a.py')).toEqual(['plan']);
    store.set('analysis', 'file:///a.py', []);
    expect(published.get('file:///a.py')).toEqual([]);
  });
});
