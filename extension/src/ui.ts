import * as vscode from 'vscode';
import type { CtxInit } from './ctx';

/** A URI passed by a caller (explorer context menu, tests), or one the user picks. */
export async function pickFile(given: unknown, title: string, filters: Record<string, string[]>): Promise<vscode.Uri | undefined> {
  if (given instanceof vscode.Uri) return given;
  if (typeof given === 'string' && given.length > 0) return given.includes('://') ? vscode.Uri.parse(given) : vscode.Uri.file(given);
  const picked = await vscode.window.showOpenDialog({
    title,
    canSelectMany: false,
    filters,
    ...(vscode.workspace.workspaceFolders?.[0] && { defaultUri: vscode.workspace.workspaceFolders[0].uri }),
  });
  return picked?.[0];
}

/** Shows a failed request as an error notification (the server's message names the problem). */
export async function reportErrors(c: CtxInit, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    c.log.error(message);
    void vscode.window.showErrorMessage(`Headroom: ${message}`);
  }
}
