/** Parsing of PYTORCH_CUDA_ALLOC_CONF values (`key:value,key:value`), shared by HR009 and HR010. */

/** Every option any recent PyTorch (CUDA or ROCm build) accepts (c10 CUDAAllocatorConfig / AcceleratorAllocatorConfig). */
export const KNOWN_KEYS = [
  'backend', 'max_split_size_mb', 'roundup_power2_divisions', 'max_non_split_rounding_mb', 'garbage_collection_threshold',
  'expandable_segments', 'release_lock_on_cudamalloc', 'release_lock_on_hipmalloc', 'pinned_use_cuda_host_register',
  'pinned_use_hip_host_register', 'pinned_num_register_threads', 'pinned_use_background_threads', 'pinned_reserve_segment_size_mb',
  'graph_capture_record_stream_reuse', 'per_process_memory_fraction',
] as const;

export interface ConfEntry {
  key: string;
  value: string;
}

/**
 * Splits a conf string into entries. A bracketed value (`roundup_power2_divisions:[256:1,>:8]`)
 * stays one entry.
 */
export function parseAllocConf(conf: string): ConfEntry[] {
  const entries: ConfEntry[] = [];
  let depth = 0;
  let current = '';
  const flush = (): void => {
    const trimmed = current.trim();
    current = '';
    if (!trimmed) return;
    const colon = trimmed.indexOf(':');
    entries.push(colon < 0 ? { key: trimmed, value: '' } : { key: trimmed.slice(0, colon).trim(), value: trimmed.slice(colon + 1).trim() });
  };
  for (const ch of conf) {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ',' && depth === 0) flush();
    else current += ch;
  }
  flush();
  return entries;
}

export function formatAllocConf(entries: ConfEntry[]): string {
  return entries.map((e) => (e.value === '' ? e.key : `${e.key}:${e.value}`)).join(',');
}

/** Levenshtein distance, for suggesting the option a misspelled key meant. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

export function isTrue(value: string): boolean {
  return value === 'True' || value === 'true' || value === '1';
}
