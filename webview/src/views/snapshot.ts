import type { SnapshotSummary } from '../../../server/src/protocol';
import { h, table } from '../dom';

export function renderSnapshot(s: SnapshotSummary & { file: string }): HTMLElement[] {
  const rows = Object.entries(s.actionCounts)
    .sort((a, b) => b[1] - a[1])
    .map(([action, count]) => [action, count.toLocaleString('en-US')]);
  return [
    h('h1', {}, `Memory snapshot: ${s.file}`),
    h('p', { class: 'summary' }, `${s.traceEvents.toLocaleString('en-US')} trace events on ${s.deviceCount} device(s); ${s.segmentCount} segments at the end.`),
    table(['Action', 'Events'], rows),
  ];
}
