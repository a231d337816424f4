/**
 * Accelerator memory capacities, one entry per device model as the framework sees it (one MI250X
 * package is two devices of 64 GB each, so the entry is per GCD). `capacityBytes` is what a memory
 * plan is compared against: the capacity the framework reports where we have a measurement or a
 * printed error message, otherwise the vendor's nominal size (then `nominal: true`).
 */

export type DeviceVendor = 'nvidia' | 'amd' | 'furiosa' | 'intel' | 'google';
/** The software stack that allocates on the device; decides which allocator rules apply. */
export type DevicePlatform = 'cuda' | 'rocm' | 'furiosa' | 'gaudi' | 'xla-tpu';

export interface DeviceSpec {
  name: string;
  /** Other spellings accepted in settings and on the command line (matched case-insensitively). */
  aliases: readonly string[];
  vendor: DeviceVendor;
  platform: DevicePlatform;
  capacityBytes: number;
  /** True when `capacityBytes` is the vendor's nominal size rather than what the runtime reports. */
  nominal: boolean;
  /** Where the capacity comes from. */
  source: string;
}

const GiB = 1024 ** 3;
const GB = 1e9;

export const DEVICES: readonly DeviceSpec[] = [
  {
    name: 'H200', aliases: ['H200-141GB', 'nvidia-h200'], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: 150_109_880_320, nominal: false,
    source: 'torch.cuda.get_device_properties(0).total_memory on an H200 (test/fixtures/snapshots/README.md, 2026-11-30)',
  },
  {
    name: 'H100-80GB', aliases: ['H100', 'H100-SXM'], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: Math.round(79.1 * GiB), nominal: false,
    source: 'PyTorch OOM message on an 80 GB card: "has a total capacity of 79.10 GiB" (FACTS.md section 1, pytorch ~2.1 message)',
  },
  {
    name: 'A100-80GB', aliases: ['A100-SXM4-80GB'], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: Math.round(79.1 * GiB), nominal: false,
    source: 'same 80 GiB HBM class as H100-80GB; NVIDIA A100 datasheet lists 80GB HBM2e',
  },
  {
    name: 'A100-40GB', aliases: ['A100', 'A100-SXM4-40GB'], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: 40 * GiB, nominal: true,
    source: 'NVIDIA A100 datasheet: 40GB HBM2 (https://www.nvidia.com/en-us/data-center/a100/)',
  },
  {
    name: 'B200', aliases: ['B200-180GB'], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: 180 * GB, nominal: true,
    source: 'NVIDIA HGX B200 specification: 1,440 GB total GPU memory for 8 GPUs (https://www.nvidia.com/en-us/data-center/hgx/)',
  },
  {
    name: 'L40S', aliases: [], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: 48 * GiB, nominal: true,
    source: 'NVIDIA L40S datasheet: 48GB GDDR6 (https://www.nvidia.com/en-us/data-center/l40s/)',
  },
  {
    name: 'L4', aliases: [], vendor: 'nvidia', platform: 'cuda',
    capacityBytes: 24 * GiB, nominal: true,
    source: 'NVIDIA L4 datasheet: 24GB GDDR6 (https://www.nvidia.com/en-us/data-center/l4/)',
  },
  {
    name: 'MI250X', aliases: ['MI250X-GCD', 'mi250x'], vendor: 'amd', platform: 'rocm',
    capacityBytes: 64 * GiB, nominal: true,
    source: 'AMD Instinct MI250X: 128 GB HBM2e per package, two GCDs that PyTorch sees as two devices of 64 GB (https://www.amd.com/en/products/accelerators/instinct/mi200/mi250x.html)',
  },
  {
    name: 'MI300X', aliases: ['mi300x'], vendor: 'amd', platform: 'rocm',
    capacityBytes: Math.round(191.69 * GiB), nominal: false,
    source: 'ROCm PyTorch OOM message on a 192 GB device: "GPU 0 has a total capacity of 191.69 GiB" (FACTS.md section 1)',
  },
  {
    name: 'MI325X', aliases: ['mi325x'], vendor: 'amd', platform: 'rocm',
    capacityBytes: 256 * GiB, nominal: true,
    source: 'AMD Instinct MI325X: 256 GB HBM3E; seed 000 reports 254.6 GB reserved on one (https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html)',
  },
  {
    name: 'RNGD', aliases: ['furiosa-rngd', 'rngd'], vendor: 'furiosa', platform: 'furiosa',
    capacityBytes: Math.round(47.5 * GiB), nominal: false,
    source: 'seed 003: furiosa-smi reports 47.50 GiB per RNGD card (48 GB HBM3 nominal)',
  },
  {
    name: 'Gaudi2', aliases: ['gaudi-2', 'hl-225'], vendor: 'intel', platform: 'gaudi',
    capacityBytes: 96 * GB, nominal: true,
    source: 'Intel Gaudi 2: 96 GB HBM2E (https://habana.ai/products/gaudi2/)',
  },
  {
    name: 'Gaudi3', aliases: ['gaudi-3', 'hl-325'], vendor: 'intel', platform: 'gaudi',
    capacityBytes: 128 * GB, nominal: true,
    source: 'Intel Gaudi 3: 128 GB HBM2e (https://www.intel.com/content/www/us/en/products/details/processors/ai-accelerators/gaudi.html)',
  },
  {
    name: 'TPU-v5e', aliases: ['v5e', 'tpu-v5-lite'], vendor: 'google', platform: 'xla-tpu',
    capacityBytes: 16 * GiB, nominal: true,
    source: 'Cloud TPU v5e: 16 GiB HBM per chip (https://cloud.google.com/tpu/docs/v5e)',
  },
  {
    name: 'TPU-v5p', aliases: ['v5p'], vendor: 'google', platform: 'xla-tpu',
    capacityBytes: 95 * GiB, nominal: true,
    source: 'Cloud TPU v5p: 95 GiB HBM per chip (https://cloud.google.com/tpu/docs/v5p)',
  },
];

function key(name: string): string {
  return name.toLowerCase().replace(/[\s_]/g, '-');
}

/** Finds a device by name or alias, ignoring case, spaces and underscores. */
export function findDevice(name: string): DeviceSpec | undefined {
  const wanted = key(name);
  return DEVICES.find((d) => key(d.name) === wanted || d.aliases.some((a) => key(a) === wanted));
}

/** The device names, for error messages and settings documentation. */
export function deviceNames(): string[] {
  return DEVICES.map((d) => d.name);
}
