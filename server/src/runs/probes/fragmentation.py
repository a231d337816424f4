"""fragmentation: Variable-size allocation patterns under allocator settings: reserved vs allocated

Seed: -
Needs GPU: yes
Min ranks: 1
Variants: default, expandable-segments, max-split-64, roundup-power2, gc-threshold

What it shows: how much memory PyTorch's cache reserves beyond what live tensors need, for the
pattern that strands it most: decoding that grows K/V caches one token at a time with torch.cat,
batch and prompt lengths drawn at random (fixed seed), under a memory cap (a fraction of the
device, --cap-gib) so the cache must reuse what it holds. Reports the peaks of allocated and
reserved bytes, their gap, cudaMalloc retries and OOMs; a caught OOM makes the cell
`catchable-oom` (the pattern did not fit under that setting).

Variants (PYTORCH_CUDA_ALLOC_CONF):
- default: no settings.
- expandable-segments: expandable_segments:True.
- max-split-64: max_split_size_mb:64 (blocks above 64 MiB are never split).
- roundup-power2: roundup_power2_divisions:4.
- gc-threshold: garbage_collection_threshold:0.6 (only acts with a memory fraction, which this probe sets).
"""
import argparse
import random

import headroom_harness as h

SETTINGS = {
    "default": "",
    "expandable-segments": "expandable_segments:True",
    "max-split-64": "max_split_size_mb:64",
    "roundup-power2": "roundup_power2_divisions:4",
    "gc-threshold": "garbage_collection_threshold:0.6",
}
VARIANT = h.VARIANT or "default"
h.allocator_settings(SETTINGS.get(VARIANT, ""))

import torch  # noqa: E402 -- allocator settings above must precede the import


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cap-gib", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    if VARIANT not in SETTINGS:
        h.result("error", "unknown variant %r" % VARIANT)
        h.finish(2)
    h.require_gpu("fragmentation is a property of the device caching allocator")
    device = h.torch_device()
    total = torch.cuda.get_device_properties(device).total_memory
    fraction = min(1.0, opts.cap_gib * 1024 ** 3 / total)
    torch.cuda.set_per_process_memory_fraction(fraction, device)
    h.evidence("memory cap %.2f GiB (fraction %.4f of the device)" % (opts.cap_gib, fraction))
    rng = random.Random(opts.seed)
    heads, dim, layers = 16, 128, 8
    ooms = 0
    for rnd in range(opts.rounds):
        batch = rng.choice([1, 2, 4, 8])
        prompt = rng.choice([256, 512, 1024, 2048])
        new_tokens = rng.choice([64, 128, 256])
        try:
            caches = [torch.zeros(batch, heads, prompt, dim, dtype=torch.bfloat16, device=device) for _ in range(2 * layers)]
            for _step in range(new_tokens):
                caches = [torch.cat([c, torch.zeros(batch, heads, 1, dim, dtype=torch.bfloat16, device=device)], dim=2) for c in caches]
            del caches
        except torch.cuda.OutOfMemoryError as exc:
            ooms += 1
            h.evidence("round %d (batch %d, prompt %d, +%d tokens): %s" % (rnd, batch, prompt, new_tokens, str(exc).split(". ")[0]))
            caches = None
        h.progress("round %d done" % rnd)
    stats = torch.cuda.memory_stats(device)
    peak_alloc = stats["allocated_bytes.all.peak"]
    peak_reserved = stats["reserved_bytes.all.peak"]
    h.metric("peakAllocatedBytes", peak_alloc)
    h.metric("peakReservedBytes", peak_reserved)
    h.metric("reservedOverAllocatedBytes", peak_reserved - peak_alloc)
    h.metric("allocRetries", stats.get("num_alloc_retries", 0))
    h.metric("ooms", ooms)
    h.metric("segments", stats.get("segment.all.peak", 0))
    line = ("%s: peak allocated %.2f GiB, peak reserved %.2f GiB (%.2f GiB more), %d retries, %d OOMs"
            % (VARIANT, peak_alloc / 1024 ** 3, peak_reserved / 1024 ** 3, (peak_reserved - peak_alloc) / 1024 ** 3,
               stats.get("num_alloc_retries", 0), ooms))
    print(line, flush=True)
    h.result("catchable-oom" if ooms else "completed", line)
    h.finish(0)


if __name__ == "__main__":
    main()
