import { formatBytes } from '../../../server/src/format';
import { isLibraryFrame } from '../../../server/src/triage/frames';
import type { ReplaySnapshotResult, ReplayVariantInfo } from '../../../server/src/protocol';
import { fileLink, h, table, type Post } from '../dom';
import { memoryChart } from '../memoryChart';
import type { PanelContent } from '../messages';
import { renderSnapshot } from './snapshot';

const GiB = 1024 ** 3;

/** Allocated vs reserved after every trace entry: every event is drawn, none sampled away. */
function timelineChart(timeline: NonNullable<ReplayVariantInfo['timeline']>): HTMLElement {
  const x = Float64Array.from({ length: timeline.allocatedBytes.length }, (_, i) => i);
  return memoryChart(x, timeline.allocatedBytes, timeline.reservedBytes, { xLabel: 'trace entry', height: 260, maxWidth: 1100 });
}

function variantsTable(result: ReplaySnapshotResult): HTMLElement {
  return table(
    ['Settings', 'Capacity', 'Reserved peak', 'Allocated peak', 'Reserved − allocated', 'Segments (cudaMalloc)', 'Retries', 'OOMs', 'First OOM'],
    result.variants.map((v) => [
      v.settings || '(recorded settings)',
      v.capacityBytes === null ? 'unlimited' : formatBytes(v.capacityBytes),
      formatBytes(v.reservedPeakBytes),
      formatBytes(v.allocatedPeakBytes),
      formatBytes(v.fragmentationBytes),
      String(v.segmentAllocs),
      String(v.allocRetries),
      String(v.ooms),
      v.firstOom ? `${formatBytes(v.firstOom.sizeBytes)} at request #${v.firstOom.allocIndex}${v.firstOom.frames[0] ? ` (${v.firstOom.frames[0].filename}:${v.firstOom.frames[0].line})` : ''}` : '—',
    ]),
  );
}

function peakSites(post: Post, variant: ReplayVariantInfo): HTMLElement {
  return table(
    ['Live at the peak', 'Allocations', 'Where'],
    variant.peakSites.map((site) => {
      // The innermost frame outside Python, the framework and installed packages says most.
      const top = site.frames.find((f) => !isLibraryFrame({ file: f.filename, line: f.line, function: f.name })) ?? site.frames[0];
      const label = top ? `${top.filename}:${top.line} in ${top.name}` : '(no frames recorded)';
      const where = site.workspaceSite ? fileLink(post, `${site.workspaceSite.uri.replace(/^file:\/\//, '')}:${site.workspaceSite.line + 1} in ${site.workspaceSite.name}`, site.workspaceSite.uri, site.workspaceSite.line + 1) : label;
      return [formatBytes(site.bytes), String(site.count), where];
    }),
  );
}

/** A capacity the user types in GiB; the extension replays every variant under it. */
function capacityForm(post: Post, file: string): HTMLElement {
  const input = h('input', { type: 'number', min: '0.25', step: '0.25', value: '48', class: 'capacity', 'aria-label': 'Capacity in GiB' }) as HTMLInputElement;
  const button = h('button', { class: 'replay-capacity' }, 'Replay at this capacity');
  button.addEventListener('click', () => {
    const gib = Number(input.value);
    if (Number.isFinite(gib) && gib > 0) post({ type: 'replayAtCapacity', file, capacityBytes: Math.round(gib * GiB) });
  });
  return h('p', {}, 'Will it fit on a smaller card? Capacity ', input, ' GiB ', button);
}

export function renderReplay(post: Post, content: Extract<PanelContent, { view: 'replay' }>): Array<HTMLElement | string> {
  const { file, replay, atCapacity } = content;
  const recorded = replay.variants[0];
  const source = replay.source;
  return [
    ...renderSnapshot({ file, ...content.summary }),
    h('p', {}, `Recorded allocator settings: ${source.settings || 'defaults'}.`),
    ...source.notes.map((n) => h('p', { class: 'message' }, n)),
    h('h2', {}, 'What if: the same requests under other allocator settings'),
    variantsTable(replay),
    h('h2', {}, 'Capacity'),
    capacityForm(post, file),
    atCapacity ? variantsTable(atCapacity) : '',
    recorded?.timeline ? h('h2', {}, 'Allocated and reserved over the trace (recorded settings)') : '',
    recorded?.timeline ? timelineChart(recorded.timeline) : '',
    recorded ? h('h2', {}, 'Allocation sites holding memory at the peak') : '',
    recorded ? peakSites(post, recorded) : '',
  ];
}
