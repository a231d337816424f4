import type { Diagnostic } from 'vscode-languageserver';

/** Publishes diagnostics for one URI. */
export type PublishDiagnostics = (uri: string, diagnostics: Diagnostic[]) => void;

/**
 * Keeps each feature's diagnostics apart (analysis, triage, runs) and publishes their union per
 * URI, because `textDocument/publishDiagnostics` replaces everything previously sent for a URI.
 */
export class DiagnosticsStore {
  private readonly bySource = new Map<string, Map<string, Diagnostic[]>>();

  constructor(private readonly publish: PublishDiagnostics) {}

  /** Replaces `source`'s diagnostics for `uri` and republishes that URI. */
  set(source: string, uri: string, diagnostics: Diagnostic[]): void {
    let perUri = this.bySource.get(source);
    if (!perUri) this.bySource.set(source, (perUri = new Map()));
    if (diagnostics.length === 0) perUri.delete(uri);
    else perUri.set(uri, diagnostics);
    this.publish(uri, this.get(uri));
  }

  /** Drops every diagnostic of `source` (e.g. a new triage replaces the previous one's). */
  clearSource(source: string): void {
    const perUri = this.bySource.get(source);
    if (!perUri) return;
    this.bySource.delete(source);
    for (const uri of perUri.keys()) this.publish(uri, this.get(uri));
  }

  get(uri: string): Diagnostic[] {
    const all: Diagnostic[] = [];
    for (const perUri of this.bySource.values()) all.push(...(perUri.get(uri) ?? []));
    return all;
  }
}
