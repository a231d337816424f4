import { formatBytes } from '../../../server/src/format';
import type { TriageReport, Verdict } from '../../../server/src/protocol';
import { fileLink, h, table, type Post } from '../dom';

const NUMBER_ROWS: ReadonlyArray<[keyof Verdict, string]> = [
  ['requestedBytes', 'Requested'],
  ['deviceTotalBytes', 'Device total'],
  ['freeBytes', 'Free on device'],
  ['allocatedBytes', 'Allocated by PyTorch'],
  ['reservedBytes', 'Reserved by PyTorch'],
  ['reservedUnallocatedBytes', 'Reserved but unallocated'],
  ['processInUseBytes', 'In use by this process'],
  ['allowedBytes', 'Allowed'],
];

function renderVerdict(post: Post, v: Verdict, index: number): HTMLElement {
  const numbers = NUMBER_ROWS.flatMap(([key, label]) => {
    const value = v[key];
    return typeof value === 'number' ? [[label, formatBytes(value)]] : [];
  });
  const frames = v.userFrames.map((f) => {
    const label = `${f.file}:${f.line} in ${f.function}`;
    return h('li', {}, f.workspaceUri ? fileLink(post, label, f.workspaceUri, f.line) : label);
  });
  const where = [v.platform, v.device !== undefined ? `device ${v.device}` : '', v.rank !== undefined ? `rank ${v.rank}` : '', v.catchable ? 'catchable' : 'not catchable'];
  return h(
    'section',
    { class: 'verdict', 'data-kind': v.kind },
    h('h2', {}, h('vscode-badge', { variant: 'counter' }, String(index + 1)), ' ', h('span', { class: 'kind' }, v.kind), ` · ${where.filter(Boolean).join(' · ')}`),
    h('p', { class: 'summary' }, v.summary),
    v.causedBy !== undefined ? h('p', {}, `A consequence of failure ${v.causedBy + 1}.`) : '',
    h('p', {}, v.explanation),
    numbers.length > 0 ? table(['Quantity', 'Size'], numbers) : '',
    frames.length > 0 ? h('h3', {}, 'Your frames (innermost first)') : '',
    frames.length > 0 ? h('ul', { class: 'frames' }, ...frames) : '',
    v.fixes.length > 0 ? h('h3', {}, 'Fixes, best fit first') : '',
    h('ol', { class: 'fixes' }, ...v.fixes.map((f) => h('li', {}, h('strong', {}, f.title), h('br'), f.rationale, f.snippet ? h('pre', {}, f.snippet) : ''))),
    h('vscode-collapsible', { title: 'Evidence' }, h('pre', {}, v.evidence.map((e) => `${e.line}: ${e.text}`).join('\n'))),
  );
}

export function renderTriage(post: Post, report: TriageReport): Array<HTMLElement | string> {
  const heading = h('h1', {}, `Triage: ${report.source}`);
  const only = report.verdicts.length === 1 ? report.verdicts[0] : undefined;
  if (only?.noFailureFound) return [heading, h('p', { class: 'empty', 'data-kind': only.kind }, `${only.summary} (${only.platform}). ${only.explanation}`)];
  return [heading, ...report.verdicts.map((v, i) => renderVerdict(post, v, i))];
}
