/**
 * The results webview: draws whatever the extension sends (a triage report or a snapshot summary)
 * with @vscode-elements components, and keeps the last content in the webview state so the panel
 * restores itself after being hidden or after a reload.
 */
import '@vscode-elements/elements/dist/vscode-badge/index.js';
import '@vscode-elements/elements/dist/vscode-collapsible/index.js';
import '@vscode-elements/elements/dist/vscode-divider/index.js';
import '@vscode-elements/elements/dist/vscode-table/index.js';
import '@vscode-elements/elements/dist/vscode-table-body/index.js';
import '@vscode-elements/elements/dist/vscode-table-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-header/index.js';
import '@vscode-elements/elements/dist/vscode-table-header-cell/index.js';
import '@vscode-elements/elements/dist/vscode-table-row/index.js';
import type { FromWebview, PanelContent, SnapshotSummaryView, ToWebview, TriageView, VerdictView } from './messages';
import { formatBytes } from '../../server/src/format';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): PanelContent | undefined;
  setState(state: PanelContent): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const root = document.getElementById('root')!;

/** Creates an element with attributes and children; text children are escaped by construction. */
function h(tag: string, attrs: Record<string, string> = {}, ...children: Array<Node | string>): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
}

function table(headers: string[], rows: Array<Array<Node | string>>): HTMLElement {
  return h(
    'vscode-table',
    { 'zebra': '', 'bordered-rows': '', 'resizable': '' },
    h('vscode-table-header', { slot: 'header' }, ...headers.map((t) => h('vscode-table-header-cell', {}, t))),
    h('vscode-table-body', { slot: 'body' }, ...rows.map((r) => h('vscode-table-row', {}, ...r.map((c) => h('vscode-table-cell', {}, c))))),
  );
}

const NUMBER_ROWS: ReadonlyArray<[keyof VerdictView, string]> = [
  ['requestedBytes', 'Requested'],
  ['deviceTotalBytes', 'Device total'],
  ['freeBytes', 'Free on device'],
  ['allocatedBytes', 'Allocated by PyTorch'],
  ['reservedBytes', 'Reserved by PyTorch'],
  ['reservedUnallocatedBytes', 'Reserved but unallocated'],
  ['processInUseBytes', 'In use by this process'],
  ['allowedBytes', 'Allowed'],
];

function renderVerdict(v: VerdictView, index: number): HTMLElement {
  const numbers = NUMBER_ROWS.flatMap(([key, label]) => {
    const value = v[key];
    return typeof value === 'number' ? [[label, formatBytes(value)]] : [];
  });
  const frames = v.userFrames.map((f) => {
    const label = `${f.file}:${f.line} in ${f.function}`;
    if (!f.workspaceUri) return h('li', {}, label);
    const link = h('a', { href: '#', class: 'frame' }, label);
    link.addEventListener('click', (e) => {
      e.preventDefault();
      vscode.postMessage({ type: 'openFrame', uri: f.workspaceUri!, line: f.line });
    });
    return h('li', {}, link);
  });
  return h(
    'section',
    { class: 'verdict', 'data-kind': v.kind },
    h('h2', {}, h('vscode-badge', { variant: 'counter' }, String(index + 1)), ' ', h('span', { class: 'kind' }, v.kind), ` · ${v.platform}`, v.catchable ? ' · catchable' : ''),
    h('p', { class: 'summary' }, v.summary),
    v.causedBy !== undefined ? h('p', {}, `A consequence of failure ${v.causedBy + 1}.`) : '',
    h('p', {}, v.explanation),
    numbers.length > 0 ? table(['Quantity', 'Size'], numbers) : '',
    frames.length > 0 ? h('h3', {}, 'Your frames (innermost first)') : '',
    frames.length > 0 ? h('ul', { class: 'frames' }, ...frames) : '',
    h('h3', {}, 'Fixes, best fit first'),
    h('ol', { class: 'fixes' }, ...v.fixes.map((f) => h('li', {}, h('strong', {}, f.title), h('br'), f.rationale, f.snippet ? h('pre', {}, f.snippet) : ''))),
    h('vscode-collapsible', { title: 'Evidence' }, h('pre', {}, v.evidence.map((e) => `${e.line}: ${e.text}`).join('\n'))),
  );
}

function renderTriage(report: TriageView): HTMLElement[] {
  const heading = h('h1', {}, `Triage: ${report.source}`);
  if (report.verdicts.length === 0) return [heading, h('p', { class: 'empty' }, 'No out-of-memory failure or crash was recognized in this text.')];
  return [heading, ...report.verdicts.map(renderVerdict)];
}

function renderSnapshot(s: SnapshotSummaryView): HTMLElement[] {
  const rows = Object.entries(s.actionCounts)
    .sort((a, b) => b[1] - a[1])
    .map(([action, count]) => [action, count.toLocaleString('en-US')]);
  return [
    h('h1', {}, `Memory snapshot: ${s.file}`),
    h('p', { class: 'summary' }, `${s.traceEvents.toLocaleString('en-US')} trace events on ${s.deviceCount} device(s); ${s.segmentCount} segments at the end.`),
    table(['Action', 'Events'], rows),
  ];
}

function render(content: PanelContent): void {
  switch (content.view) {
    case 'triage':
      root.replaceChildren(...renderTriage(content.report));
      break;
    case 'snapshot':
      root.replaceChildren(...renderSnapshot(content.summary));
      break;
  }
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  switch (message.type) {
    case 'show':
      vscode.setState(message.content);
      render(message.content);
      break;
  }
});

const saved = vscode.getState();
if (saved) render(saved);
vscode.postMessage({ type: 'ready' });
