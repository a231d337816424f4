/**
 * `headroom repro`: the reproducers from the command line.
 *
 *   headroom repro list [--json]
 *   headroom repro run PROBE --target local [--variant V]... [--repeat N] [--ranks N] [--json]
 *                      [--hang-window S] [--python PY] [--store DIR] [--env NAME=VALUE]... [-- PROBE-ARGS...]
 *   headroom repro runs [--json] [--store DIR]
 *   headroom repro show RUN-ID [--json] [--store DIR]
 *
 * `run` prints the run record as JSON with --json, else live progress on stderr and the outcome
 * matrix on stdout. Ctrl-C (SIGINT) or SIGTERM cancels the run: every process of it is killed and
 * the record, with its finished cells, says `cancelled`.
 */
import { parseArgs } from 'node:util';
import type { CellOutcome, CellResult, RunRecord } from '../protocol';
import { listProbes, publicInfo } from './catalog';
import { RunError } from './errors';
import { RunManager, type RunListener } from './runner';
import { defaultStoreRoot, RunStore, type RunSummary } from './store';

const OUTCOMES: readonly CellOutcome[] = ['completed', 'catchable-oom', 'abort', 'hang', 'error'];

function json(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** The record in the CLI contract's key order (extra keys after the contract's). */
function runJson(run: RunRecord): unknown {
  const { runId, probe, target, status, cells, ...rest } = run;
  return { runId, probe, target, status, cells, ...rest };
}

/** Variant x repeat, then counts per outcome, then each cell's evidence. */
export function renderRun(run: RunRecord): string {
  const out = [`run ${run.runId}: ${run.probe} on ${run.target}, ${run.ranks} rank(s): ${run.status}${run.message ? ` (${run.message})` : ''}`];
  const width = Math.max(8, ...run.variants.map((v) => v.length));
  out.push(`  ${'variant'.padEnd(width)}  ${Array.from({ length: run.repeats }, (_, i) => `#${i + 1}`.padEnd(13)).join(' ')}  counts`);
  for (const variant of run.variants) {
    const cells = Array.from({ length: run.repeats }, (_, i) => run.cells.find((c) => c.variant === variant && c.repeat === i + 1));
    const counts = OUTCOMES.map((o) => [o, cells.filter((c) => c?.outcome === o).length] as const).filter(([, n]) => n > 0);
    out.push(`  ${variant.padEnd(width)}  ${cells.map((c) => (c ? c.outcome : '-').padEnd(13)).join(' ')}  ${counts.map(([o, n]) => `${n} ${o}`).join(', ')}`);
  }
  for (const cell of run.cells) out.push(...renderCell(cell));
  return out.join('\n') + '\n';
}

function renderCell(cell: CellResult): string[] {
  const lines = [`\n${cell.variant} #${cell.repeat}: ${cell.outcome} in ${cell.seconds.toFixed(1)} s${cell.divergingRank !== undefined ? `, rank ${cell.divergingRank} diverged` : ''}`];
  for (const e of cell.evidence) lines.push(`  - ${e}`);
  for (const [name, value] of Object.entries(cell.metrics)) lines.push(`  ${name} = ${String(value)}`);
  for (const [rank, stack] of Object.entries(cell.stacks)) {
    lines.push(`  rank ${rank} stacks:`, ...stack.split('\n').map((l) => `    ${l}`));
  }
  if (cell.backtrace) lines.push('  native backtrace:', ...cell.backtrace.split('\n').map((l) => `    ${l}`));
  for (const [rank, log] of Object.entries(cell.logs)) lines.push(`  rank ${rank} log: ${log}`);
  return lines;
}

function renderSummary(s: RunSummary): string {
  return `${s.runId}  ${s.status.padEnd(11)}  ${s.cellCount}/${s.variants.length * s.repeats} cells  ${s.probe} on ${s.target}`;
}

function number(text: string | undefined, name: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new RunError('HR_RUN_ARGUMENT', `${name} expects a number, got "${text}"`);
  return n;
}

function parseEnv(pairs: string[] | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new RunError('HR_RUN_ARGUMENT', `--env expects NAME=VALUE, got "${pair}"`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      target: { type: 'string' },
      variant: { type: 'string', multiple: true },
      repeat: { type: 'string' },
      ranks: { type: 'string' },
      json: { type: 'boolean' },
      'hang-window': { type: 'string' },
      python: { type: 'string' },
      store: { type: 'string' },
      env: { type: 'string', multiple: true },
    },
  });
  const [probe, ...probeArgs] = positionals;
  if (probe === undefined) {
    process.stderr.write('headroom repro run: expected a probe id (see "headroom repro list").\n');
    return 2;
  }
  if (values.target === undefined) {
    process.stderr.write('headroom repro run: --target is required (e.g. --target local).\n');
    return 2;
  }
  const manager = new RunManager(new RunStore(values.store ?? defaultStoreRoot()));
  const quiet = values.json === true;
  const listener: RunListener = {
    progress(_runId, state) {
      if (quiet) return;
      if (state.tag === 'started') process.stderr.write(`${state.probe} on ${state.target}: ${state.cellsPlanned} cell(s)\n`);
      else if (state.tag === 'environment') {
        const e = state.environment;
        process.stderr.write(`${e.hostname}: Python ${e.pythonVersion}, torch ${e.torchVersion ?? 'absent'}, ${e.platform}, ${e.devices.length} device(s)\n`);
      } else if (state.tag === 'cell-finished') {
        process.stderr.write(`  [${state.cellsDone}/${state.cellsPlanned}] ${state.cell.variant} #${state.cell.repeat}: ${state.cell.outcome} (${state.cell.seconds.toFixed(1)} s)\n`);
      }
    },
    output() {
      // Rank output goes to the per-cell logs; the terminal shows progress only.
    },
  };
  const handle = await manager.start(
    {
      probe,
      target: values.target,
      ...(values.variant && { variants: values.variant }),
      ...(values.repeat !== undefined && { repeats: number(values.repeat, '--repeat') }),
      ...(values.ranks !== undefined && { ranks: number(values.ranks, '--ranks') }),
      ...(values['hang-window'] !== undefined && { hangWindowSeconds: number(values['hang-window'], '--hang-window') }),
      python: values.python ?? process.env['HEADROOM_PYTHON'] ?? 'python3',
      env: parseEnv(values.env),
      args: probeArgs,
      cwd: process.cwd(),
      workspaceFolders: [process.cwd()],
    },
    listener,
  );
  if (!quiet) process.stderr.write(`run ${handle.runId}\n`);
  const onSignal = (): void => void handle.cancel();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const run = await handle.done;
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (quiet) json(runJson(run));
  else process.stdout.write(renderRun(run));
  return run.status === 'finished' ? 0 : run.status === 'cancelled' ? 130 : 1;
}

/** `headroom repro ...` */
export async function reproCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list': {
      const { values } = parseArgs({ args: rest, options: { json: { type: 'boolean' } } });
      const probes = listProbes().map(publicInfo);
      if (values.json) json(probes);
      else {
        for (const p of probes) {
          process.stdout.write(`${p.id.padEnd(26)} seed ${p.seed.padEnd(3)}  ${p.needsGpu ? 'GPU' : 'CPU ok'}  ranks>=${p.minRanks}  ${p.title}\n`);
          process.stdout.write(`${''.padEnd(26)} variants: ${p.variants.join(', ')}\n`);
        }
      }
      return 0;
    }
    case 'run':
      return runCommand(rest);
    case 'runs':
    case 'show': {
      const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, options: { json: { type: 'boolean' }, store: { type: 'string' } } });
      const store = new RunStore(values.store ?? defaultStoreRoot());
      if (sub === 'runs') {
        const runs = store.list();
        if (values.json) json(runs);
        else process.stdout.write(runs.map(renderSummary).join('\n') + (runs.length > 0 ? '\n' : ''));
        return 0;
      }
      if (positionals.length !== 1) {
        process.stderr.write('headroom repro show: expected one run id (see "headroom repro runs").\n');
        return 2;
      }
      const run = store.load(positionals[0]!);
      if (values.json) json(runJson(run));
      else process.stdout.write(renderRun(run));
      return 0;
    }
    default:
      process.stderr.write('headroom repro: expected list, run, runs or show.\n');
      return 2;
  }
}
