import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatBytes } from '../../server/src/format';
import { h } from './dom';

export interface MemoryChartOptions {
  title?: string;
  xLabel: string;
  height: number;
  maxWidth: number;
}

const bytesValue = (_u: uPlot, v: number | null): string => (v == null ? '' : formatBytes(v));

/**
 * Allocated and reserved bytes against `x`, every point drawn (uPlot handles 10^6 points), sizes in
 * 1024-based units on the axis and in the legend.
 */
export function memoryChart(x: ArrayLike<number>, allocatedBytes: ArrayLike<number>, reservedBytes: ArrayLike<number>, options: MemoryChartOptions): HTMLElement {
  const holder = h('div', { class: 'chart' });
  const data = [x, allocatedBytes, reservedBytes] as unknown as uPlot.AlignedData;
  // uPlot measures its container, so draw once the holder is in the document.
  requestAnimationFrame(() => {
    new uPlot(
      {
        ...(options.title !== undefined && { title: options.title }),
        width: Math.max(320, Math.min(options.maxWidth, holder.clientWidth || options.maxWidth)),
        height: options.height,
        scales: { x: { time: false } },
        axes: [{ label: options.xLabel }, { values: (_u, ticks) => ticks.map((t) => formatBytes(t)), size: 86 }],
        series: [
          {},
          { label: 'allocated', stroke: 'rgb(80, 160, 255)', value: bytesValue },
          { label: 'reserved', stroke: 'rgb(255, 160, 60)', value: bytesValue },
        ],
      },
      data,
      holder,
    );
  });
  return holder;
}
