import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatBytes } from '../../../server/src/format';
import type { CellOutcome, CellResult, MemorySample, RunRecord } from '../../../server/src/protocol';
import { fileLink, h, table, type Post } from '../dom';

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

/** Allocated and reserved bytes of one rank over time, every sample drawn. */
function memoryChart(rank: string, samples: MemorySample[]): HTMLElement {
  const holder = h('div', { class: 'chart' });
  const data: uPlot.AlignedData = [
    samples.map((s) => s.tMs / 1000),
    samples.map((s) => s.allocatedBytes),
    samples.map((s) => s.reservedBytes),
  ];
  const sizeAxis = { values: (_u: uPlot, ticks: number[]) => ticks.map((t) => formatBytes(t)), size: 80 };
  // uPlot measures its container, so draw once the holder is in the document.
  requestAnimationFrame(() => {
    new uPlot(
      {
        title: `rank ${rank}`,
        width: Math.max(320, Math.min(900, holder.clientWidth || 600)),
        height: 200,
        scales: { x: { time: false } },
        axes: [{ label: 'seconds' }, sizeAxis],
        series: [
          {},
          { label: 'allocated', stroke: 'rgb(80, 160, 255)', value: (_u, v) => (v == null ? '' : formatBytes(v)) },
          { label: 'reserved', stroke: 'rgb(255, 160, 60)', value: (_u, v) => (v == null ? '' : formatBytes(v)) },
        ],
      },
      data,
      holder,
    );
  });
  return holder;
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
    ...charts.map(([rank, samples]) => memoryChart(rank, samples)),
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
