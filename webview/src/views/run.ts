import type { CellOutcome, CellResult, RunRecord } from '../../../server/src/protocol';
import { fileLink, h, table, type Post } from '../dom';
import { memoryChart } from '../memoryChart';

const OUTCOMES: readonly CellOutcome[] = ['completed', 'catchable-oom', 'abort', 'hang', 'error'];

function outcomeBadge(outcome: CellOutcome): HTMLElement {
  return h('span', { class: `outcome outcome-${outcome}` }, outcome);
}

/** The outcome matrix: one row per variant, one column per repeat, then counts per outcome. */
function matrix(run: RunRecord): HTMLElement {
  const repeats = Array.from({ length: run.repeats }, (_, i) => i + 1);
  const rows = run.variants.map((variant) => {
    const cells = repeats.map((repeat) => run.cells.find((c) => c.variant === variant && c.repeat === repeat));
    const counts = OUTCOMES.map((o) => [o, cells.filter((c) => c?.outcome === o).length] as const).filter(([, n]) => n > 0);
    return [
      variant,
      ...cells.map((c) => (c ? outcomeBadge(c.outcome) : h('span', { class: 'outcome pending' }, run.status === 'running' ? '…' : '—'))),
      counts.map(([o, n]) => `${n} ${o}`).join(', ') || '—',
    ];
  });
  return table(['Variant', ...repeats.map((r) => `#${r}`), 'Counts'], rows);
}

function cellDetails(post: Post, cell: CellResult): HTMLElement {
  const metrics = Object.entries(cell.metrics).map(([k, v]) => [k, String(v)]);
  const charts = Object.entries(cell.memory).filter(([, s]) => s.length > 1);
  return h(
    'vscode-collapsible',
    { title: `${cell.variant} #${cell.repeat}: ${cell.outcome} in ${cell.seconds.toFixed(1)} s${cell.divergingRank !== undefined ? ` (rank ${cell.divergingRank} diverged)` : ''}`, class: 'cell' },
    h('ul', { class: 'evidence' }, ...cell.evidence.map((e) => h('li', {}, e))),
    metrics.length > 0 ? table(['Metric', 'Value'], metrics) : '',
    ...Object.entries(cell.frames ?? {}).map(([rank, frames]) =>
      h(
        'div',
        { class: 'rank-frames' },
        h('h4', {}, `Rank ${rank}: where it stopped (innermost first)`),
        h('ul', { class: 'frames' }, ...frames.map((f) => h('li', {}, f.workspaceUri ? fileLink(post, `${f.file}:${f.line} in ${f.function}`, f.workspaceUri, f.line) : `${f.file}:${f.line} in ${f.function}`))),
      ),
    ),
    ...Object.entries(cell.stacks).map(([rank, stack]) => h('vscode-collapsible', { title: `Rank ${rank}: full stacks` }, h('pre', {}, stack))),
    cell.backtrace ? h('div', {}, h('h4', {}, 'Native backtrace'), h('pre', {}, cell.backtrace)) : '',
    Object.keys(cell.logs).length > 0
      ? h('p', {}, 'Logs: ', ...Object.entries(cell.logs).flatMap(([rank, path]) => [fileLink(post, `rank ${rank}`, path, 1), ' ']))
      : '',
    ...charts.map(([rank, samples]) =>
      memoryChart(
        samples.map((s) => s.tMs / 1000),
        samples.map((s) => s.allocatedBytes),
        samples.map((s) => s.reservedBytes),
        { title: `rank ${rank}`, xLabel: 'seconds', height: 200, maxWidth: 900 },
      ),
    ),
  );
}

export function renderRun(post: Post, run: RunRecord): Array<HTMLElement | string> {
  const env = run.environment;
  return [
    h('h1', {}, `Run ${run.probe} on ${run.target}`),
    h(
      'p',
      { class: 'summary' },
      `${run.status} · ${run.cells.length} of ${run.variants.length * run.repeats} cells · ${run.ranks} rank(s) · started ${run.startedAt}`,
    ),
    env ? h('p', {}, `${env.hostname}: Python ${env.pythonVersion}, torch ${env.torchVersion ?? 'absent'}, ${env.platform}, ${env.devices.length} device(s)${env.compiler ? `, ${env.compiler}` : ''}`) : '',
    run.message ? h('p', { class: 'message' }, run.message) : '',
    matrix(run),
    h('h2', {}, 'Cells'),
    ...run.cells.map((c) => cellDetails(post, c)),
  ];
}
