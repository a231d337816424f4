"""capacity-search: The largest batch or sequence length that fits, by bisection with the OOM caught

Seed: -
Needs GPU: yes
Min ranks: 1
Variants: default, expandable-segments

What it shows: the real capacity of a training step on this device and these settings: a
transformer (embedding, --layers encoder layers of width --dim, AdamW, fp32 or bf16 autocast) runs
one full step (forward, backward, optimizer) per try; the size doubles until a step raises
torch.OutOfMemoryError, then bisects between the last fit and the first failure. The model and
its optimizer state stay resident across tries (as in training); between tries the gradients and
activations are dropped and the cache emptied, so each try starts from the same state. Reports the largest
size that fits, its peak allocated and reserved bytes, and the first size that failed.

Options: --search batch|seq (default batch), --seq N (default 1024), --batch N (default 8 when
searching seq), --dim N (1024), --layers N (8), --vocab N (32000), --cap-gib G (memory cap, default
24: a cap keeps the search short on large devices), --bf16.

Variants:
- default: no allocator settings.
- expandable-segments: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (often fits a little more).
"""
import argparse
import gc

import headroom_harness as h

VARIANT = h.VARIANT or "default"
if VARIANT == "expandable-segments":
    h.allocator_settings("expandable_segments:True")

import torch  # noqa: E402 -- allocator settings above must precede the import


def build(opts, device):
    layer = torch.nn.TransformerEncoderLayer(opts.dim, max(1, opts.dim // 64), 4 * opts.dim, batch_first=True)
    model = torch.nn.Sequential(torch.nn.Embedding(opts.vocab, opts.dim),
                                torch.nn.TransformerEncoder(layer, opts.layers, enable_nested_tensor=False),
                                torch.nn.Linear(opts.dim, opts.vocab)).to(device)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-4)


def fits(opts, device, model, optimizer, batch, seq):
    tokens = logits = loss = None
    optimizer.zero_grad(set_to_none=True)
    gc.collect()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(device)
    try:
        tokens = torch.randint(0, opts.vocab, (batch, seq), device=device)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=opts.bf16):
            logits = model(tokens)
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, opts.vocab), tokens.view(-1))
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize(device)
        return True, torch.cuda.max_memory_allocated(device), torch.cuda.max_memory_reserved(device)
    except torch.cuda.OutOfMemoryError:
        return False, torch.cuda.max_memory_allocated(device), torch.cuda.max_memory_reserved(device)
    finally:
        del tokens, logits, loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--search", choices=["batch", "seq"], default="batch")
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--dim", type=int, default=1024)
    parser.add_argument("--layers", type=int, default=8)
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--cap-gib", type=float, default=24.0)
    parser.add_argument("--bf16", action="store_true")
    opts = parser.parse_args()
    h.require_gpu("capacity is a property of the device")
    device = h.torch_device()
    total = torch.cuda.get_device_properties(device).total_memory
    torch.cuda.set_per_process_memory_fraction(min(1.0, opts.cap_gib * 1024 ** 3 / total), device)
    h.evidence("memory cap %.1f GiB; searching %s (%s)" % (opts.cap_gib, opts.search,
               "seq %d" % opts.seq if opts.search == "batch" else "batch %d" % opts.batch))

    model, optimizer = build(opts, device)

    def attempt(size):
        batch, seq = (size, opts.seq) if opts.search == "batch" else (opts.batch, size)
        ok, peak_alloc, peak_reserved = fits(opts, device, model, optimizer, batch, seq)
        h.progress("%s %d: %s" % (opts.search, size, "fits" if ok else "OOM"))
        print("%s=%d %s (peak allocated %.2f GiB, reserved %.2f GiB)"
              % (opts.search, size, "fits" if ok else "OOM", peak_alloc / 1024 ** 3, peak_reserved / 1024 ** 3), flush=True)
        return ok, peak_alloc, peak_reserved

    good, bad, best = 0, None, (0, 0)
    size = 1
    while bad is None:
        ok, pa, pr = attempt(size)
        if ok:
            good, best = size, (pa, pr)
            size *= 2
        else:
            bad = size
    while bad - good > 1:
        mid = (good + bad) // 2
        ok, pa, pr = attempt(mid)
        if ok:
            good, best = mid, (pa, pr)
        else:
            bad = mid
    h.metric("largestFit", good)
    h.metric("firstOom", bad)
    h.metric("peakAllocatedBytesAtLargest", best[0])
    h.metric("peakReservedBytesAtLargest", best[1])
    line = "largest %s that fits: %d (first OOM at %d) under %s" % (opts.search, good, bad, VARIANT)
    h.result("completed" if good > 0 else "catchable-oom", line)
    h.finish(0)


if __name__ == "__main__":
    main()
