import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

// The addon keeps its state per Node environment (an Addon object released by a cleanup hook, no
// statics): it must load and work in worker threads, and a process must exit cleanly while its
// decodes are still running on libuv's threads.
const addon = process.env['HEADROOM_NATIVE'] ?? path.join(__dirname, '..', '..', 'native', 'build', 'Release', 'headroom.node');
const fixture = path.join(__dirname, '..', 'fixtures', 'snapshots', 'kvcache__default.pickle.gz');

function runNode(script: string): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, ADDON: addon, FIXTURE: fixture } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('native addon across threads and exits', () => {
  it('works in several worker threads at once, each with its own error class', () => {
    const run = runNode(`
      const { Worker } = require('node:worker_threads');
      const work = \`
        const { parentPort } = require('node:worker_threads');
        const a = require(process.env.ADDON);
        class WorkerError extends Error { constructor(m, c) { super(m); this.code = c; } }
        a.init(WorkerError);
        (async () => {
          const s = await a.decodeSnapshotSummary(process.env.FIXTURE);
          let err;
          try { await a.decodeSnapshotSummary(new Uint8Array([0x80, 4, 0x5d, 0x2e])); } catch (e) { err = e; }
          parentPort.postMessage({ events: s.traceEvents, ownClass: err instanceof WorkerError, code: err && err.code });
        })();
      \`;
      const results = [];
      for (let i = 0; i < 3; i++) {
        const w = new Worker(work, { eval: true });
        w.on('message', (m) => { results.push(m); if (results.length === 3) console.log(JSON.stringify(results)); });
        w.on('error', (e) => { console.error(e); process.exit(1); });
      }
    `);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const results = JSON.parse(run.stdout) as { events: number; ownClass: boolean; code: string }[];
    expect(results).toEqual(Array(3).fill({ events: 21488, ownClass: true, code: 'ERR_SNAPSHOT_SCHEMA' }));
  });

  it('lets a process exit while replays are still running', () => {
    const run = runNode(`
      const a = require(process.env.ADDON);
      a.init(class extends Error {});
      for (let i = 0; i < 4; i++) a.replaySnapshot(process.env.FIXTURE, { variants: [{}, { settings: 'expandable_segments:True' }] });
      setImmediate(() => process.exit(0));
    `);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('terminates a worker thread that is waiting on a decode', () => {
    const run = runNode(`
      const { Worker } = require('node:worker_threads');
      const w = new Worker(\`
        const a = require(process.env.ADDON);
        a.init(class extends Error {});
        a.replaySnapshot(process.env.FIXTURE, { variants: [{}] });
        require('node:worker_threads').parentPort.postMessage('started');
      \`, { eval: true });
      w.on('message', async () => { await w.terminate(); console.log('terminated'); });
    `);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trim()).toBe('terminated');
  });
});
