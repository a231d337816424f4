/**
 * The runs feature over LSP, with a connection that holds only the members it uses and the real
 * local target on CPU PyTorch: every notification carries the runId, states arrive in order, the
 * stored run is what getRun and listRuns answer, and a failure in a workspace file becomes a
 * diagnostic at its line.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic } from 'vscode-languageserver';
import { describe, expect, it } from 'vitest';
import type { ServerContext } from '../../server/src/context';
import { DiagnosticsStore } from '../../server/src/diagnostics';
import type { ProbeInfo, RunProgressParams, RunRecord } from '../../server/src/protocol';
import { register } from '../../server/src/runs/lsp';
import { normalizeSettings } from '../../server/src/settings';
import { torchPython, waitFor } from './runs-helpers';
import { tempDir } from '../support/tempDir';

const python = torchPython();

function fakeServer(workspace: string, py: string) {
  const handlers = new Map<string, (params: unknown) => unknown>();
  const notifications: Array<{ method: string; params: { runId: string } }> = [];
  const published = new Map<string, Diagnostic[]>();
  const ctx = {
    connection: {
      onRequest: (type: { method: string }, handler: (params: unknown) => unknown) => void handlers.set(type.method, handler),
      sendNotification: (type: { method: string }, params: { runId: string }) => {
        notifications.push({ method: type.method, params });
        return Promise.resolve();
      },
    },
    diagnostics: new DiagnosticsStore((uri, diags) => published.set(uri, diags)),
    settingsFor: async () => normalizeSettings({ python: py }),
    onSettingsChanged: () => undefined,
    workspaceFolders: () => [workspace],
    track: <T>(_label: string, work: () => Promise<T>) => work(),
  } as unknown as ServerContext;
  register(ctx);
  const request = async <R>(method: string, params?: unknown): Promise<R> => (await handlers.get(method)!(params)) as R;
  return { request, notifications, published };
}

describe.skipIf(python === undefined)('runs over LSP', () => {
  it('starts a run, streams its states with the runId, stores it, and marks the failing workspace line', async () => {
    process.env['HEADROOM_RUNS_DIR'] = tempDir('hr-lsp-runs-');
    const workspace = tempDir('hr-ws-');
    writeFileSync(
      join(workspace, 'train.py'),
      ['import torch', '', 'def step():', '    raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB.")', '', 'step()', ''].join('\n'),
    );
    const server = fakeServer(workspace, python!);

    const probes = await server.request<ProbeInfo[]>('headroom/listProbes');
    expect(probes.find((p) => p.id === 'script')?.variants).toEqual(['as-is', 'expandable-segments', 'max-split-512']);

    const { runId } = await server.request<{ runId: string }>('headroom/startRun', {
      probe: 'script', target: 'local', variants: ['as-is'], args: ['train.py'],
    });
    const progress = () => server.notifications.filter((n) => n.method === 'headroom/runProgress').map((n) => n.params as RunProgressParams);
    await waitFor('the run to end', () => progress().some((p) => p.state.tag === 'ended'), 120_000);

    expect(server.notifications.every((n) => n.params.runId === runId)).toBe(true);
    expect(progress().map((p) => p.state.tag)).toEqual(['started', 'environment', 'cell-started', 'cell-finished', 'ended']);
    const run = await server.request<RunRecord>('headroom/getRun', { runId });
    expect(run).toMatchObject({ status: 'finished', probe: 'script', target: 'local' });
    expect(run.cells[0]?.outcome).toBe('catchable-oom');
    const trainUri = pathToFileURL(join(workspace, 'train.py')).href;
    expect(run.cells[0]?.frames?.['0']?.[0]).toEqual({ file: join(workspace, 'train.py'), line: 4, function: 'step', workspaceUri: trainUri });
    const listed = await server.request<Array<{ runId: string; cellCount: number }>>('headroom/listRuns');
    expect(listed.find((r) => r.runId === runId)?.cellCount).toBe(1);

    const diags = server.published.get(pathToFileURL(join(workspace, 'train.py')).href) ?? [];
    expect(diags).toHaveLength(1);
    expect(diags[0]!.range.start.line).toBe(3);
    expect(diags[0]!.message).toMatch(/^Rank 0 stopped here \(as-is #1: catchable-oom\)/);

    await expect(server.request('headroom/cancelRun', { runId })).rejects.toMatchObject({ code: 'HR_UNKNOWN_RUN' });
  }, 180_000);
});
