"""cache-held-collective: Collectives on a device whose memory sits in PyTorch's cache

Seed: 000
Needs GPU: yes
Min ranks: 1
Variants: keep-cache, empty-cache, expandable-segments, skip-abort-env

What it shows: seed 000. Fill the device, hand every block to PyTorch's caching allocator with
`del` (the device stays full, the memory is reclaimable), then run only collectives
(`all_gather_into_tensor`, 20 by default). PyTorch allocates nothing more, so the collective
library is the one that meets the exhausted device. On ROCm before 7.x the runtime aborts the
process on an HSA thread (an `abort` cell, with the native backtrace when the preload shim is
there); on NVIDIA + NCCL all 20 complete (measured: 20/20 on one and two H200s with ~138 GB
reclaimable). A collective that raises instead counts as `catchable-oom`.

Variants:
- keep-cache: the seed's EMPTY_CACHE=0: collectives with the cache holding the device.
- empty-cache: torch.cuda.empty_cache() before the collectives (the seed's fix).
- expandable-segments: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for the whole run (unmapped
  pages go back to the device on OOM; unsupported on ROCm before 7.0).
- skip-abort-env: HIP_SKIP_ABORT_ON_GPU_ERROR=1, the ROCm setting the seed tried (no effect on CUDA;
  did not prevent the abort on ROCm 7.0 and 7.2).

Options: --collectives N (default 20), --mib N (send buffer per rank, default 512).
"""
import argparse
import os

import headroom_harness as h

VARIANT = h.VARIANT or "keep-cache"
if VARIANT == "expandable-segments":
    h.allocator_settings("expandable_segments:True")
if VARIANT == "skip-abort-env":
    os.environ["HIP_SKIP_ABORT_ON_GPU_ERROR"] = "1"
    h.evidence("HIP_SKIP_ABORT_ON_GPU_ERROR=1")

import torch  # noqa: E402 -- allocator settings above must precede the import

GiB = 1024 ** 3
MiB = 1024 ** 2


def state_line(label):
    s = h.memory_state()
    line = ("%s: device free %.3f GB, reserved %.1f GB, live %.2f GB, reclaimable %.1f GB"
            % (label, s["deviceFreeBytes"] / 1e9, s["reservedBytes"] / 1e9, s["allocatedBytes"] / 1e9, s["reclaimableBytes"] / 1e9))
    print(line, flush=True)
    return s, line


def fill_device():
    """Allocates blocks from 8 GiB down to 32 MiB until nothing more fits; returns how many bytes."""
    blocks, chunk, total = [], 8 * GiB, 0
    while chunk >= 32 * MiB:
        try:
            blocks.append(torch.empty(chunk, dtype=torch.uint8, device=h.torch_device()))
            total += chunk
        except torch.cuda.OutOfMemoryError:
            chunk //= 2
        h.progress("filled %.1f GB" % (total / 1e9))
    return blocks, total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--collectives", type=int, default=20)
    parser.add_argument("--mib", type=int, default=512)
    opts = parser.parse_args()
    h.require_gpu("it needs a device to fill and a collective library to meet the full device")
    dist = h.init_distributed()
    world = dist.get_world_size()
    n = opts.mib * MiB // 2
    send = torch.ones(n, dtype=torch.bfloat16, device=h.torch_device())
    recv = torch.empty(n * world, dtype=torch.bfloat16, device=h.torch_device())
    h.collective("all_reduce(warm-up)", dist.all_reduce, send)
    torch.cuda.synchronize()

    blocks, filled = fill_device()
    h.metric("filledBytes", filled)
    del blocks
    after, line = state_line("after del")
    h.evidence(line)
    for key in ("deviceFreeBytes", "reclaimableBytes"):
        h.metric(key + "AfterDel", after[key])
    if VARIANT == "empty-cache":
        torch.cuda.empty_cache()
        _s, line = state_line("after empty_cache()")
        h.evidence(line)
    h.collective("barrier", dist.barrier)

    done = 0
    try:
        for i in range(opts.collectives):
            h.collective("all_gather_into_tensor", dist.all_gather_into_tensor, recv, send)
            torch.cuda.synchronize()
            done += 1
            h.progress("collective %d OK" % i)
    except Exception as exc:  # noqa: BLE001 -- any collective failure is the finding
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        h.metric("collectivesCompleted", done)
        h.evidence("collective %d raised %s: %s" % (done, type(exc).__name__, first))
        h.result("catchable-oom" if h.is_oom(exc) or "cuda error" in str(exc).lower() else "error",
                 "%d of %d collectives completed before a catchable error" % (done, opts.collectives))
        h.finish(1)
    h.metric("collectivesCompleted", done)
    print("ALL %d COLLECTIVES COMPLETED" % done, flush=True)
    h.result("completed", "%d of %d collectives completed" % (done, opts.collectives))
    h.finish(0)


if __name__ == "__main__":
    main()
