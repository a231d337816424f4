"""rank-divergent-allocation: One rank's allocation fails before a collective; the others hang or all fall back

Seed: 004
Needs GPU: no
Min ranks: 2
Variants: naive, synchronized, flag-after-alloc

What it shows: the TensorRT-LLM failure of seed 004. Each rank allocates a "registered" buffer (the
seed's ncclMemAlloc) and then all-reduces an ok flag so that every rank takes the same path. The
last rank's allocation fails (injected: through the preload shim on GPUs, in Python on CPU). When
that rank leaves the collective path, the healthy ranks wait in the all-reduce it never joins,
while it waits in the fallback path's pipeline hand-off (a recv from the previous rank): a hang
with every rank alive, which Headroom's watchdog catches with every rank's stack.
Runs with NCCL on GPUs and with gloo on CPU, so CI exercises the real hang and its fix.

Variants:
- naive: the failing rank catches the OOM and falls back at once, skipping the ok-flag all-reduce.
  Expected: hang.
- synchronized: the flag is allocated before the risky allocation, the sticky error is drained, and
  the ok flag is all-reduced (min) on every rank, so all ranks fall back together (the seed's fix).
  Expected: completed.
- flag-after-alloc: the seed's first attempt: the flag is allocated after the failed allocation,
  whose error is sticky, so the flag allocation fails too and the rank unwinds before the
  all-reduce. Expected: hang.

Options: --fail-rank R (default: the last rank), --mib N (size of the registered buffer, default 64).
On GPUs PyTorch's cache is turned off for this probe (PYTORCH_NO_CUDA_MEMORY_CACHING=1) so that the
flag allocation reaches cudaMalloc, where the shim's sticky failure can hit it.
"""
import argparse
import os

os.environ.setdefault("PYTORCH_NO_CUDA_MEMORY_CACHING", "1")

import headroom_harness as h  # noqa: E402 -- the environment above must be set before torch loads
import torch  # noqa: E402

MiB = 1024 * 1024


class RegistrationFailed(Exception):
    """The registered buffer could not be set up on this rank."""



def all_reduce_min(dist, flag):
    h.collective("all_reduce(ok flag, MIN)", dist.all_reduce, flag, op=dist.ReduceOp.MIN)
    return int(flag.item())  # .item() waits for the device, so a NCCL hang shows on this line


def register_naive(dist, nbytes, failing):
    try:
        buf = h.risky_alloc(nbytes, sticky=False) if failing else h.alloc(nbytes)
    except torch.cuda.OutOfMemoryError as exc:  # h.alloc's one type for every allocation failure
        h.evidence("rank %d: registered-buffer allocation failed: %s" % (h.RANK, str(exc).splitlines()[0]))
        raise RegistrationFailed() from exc
    flag = h.alloc(4, torch.int32).fill_(1)
    return buf if all_reduce_min(dist, flag) == 1 else None


def register_synchronized(dist, nbytes, failing):
    flag = h.alloc(4, torch.int32).fill_(1)  # allocated first: always ready, whatever happens next
    buf = None
    try:
        buf = h.risky_alloc(nbytes, sticky=True) if failing else h.alloc(nbytes)
    except torch.cuda.OutOfMemoryError as exc:
        h.evidence("rank %d: registered-buffer allocation failed: %s" % (h.RANK, str(exc).splitlines()[0]))
        h.drain()  # the seed's cudaGetLastError(): clear the sticky error before touching the device again
        flag.fill_(0)
    agreed = all_reduce_min(dist, flag)
    if agreed == 0:
        h.evidence("rank %d: ok flag reduced to 0, taking the fallback path with every other rank" % h.RANK)
        return None
    return buf


def register_flag_after_alloc(dist, nbytes, failing):
    buf = None
    try:
        buf = h.risky_alloc(nbytes, sticky=True) if failing else h.alloc(nbytes)
        ok = 1
    except torch.cuda.OutOfMemoryError as exc:
        h.evidence("rank %d: registered-buffer allocation failed: %s" % (h.RANK, str(exc).splitlines()[0]))
        ok = 0
    try:
        flag = h.alloc(4, torch.int32).fill_(ok)  # too late: the sticky error fails this one as well
    except torch.cuda.OutOfMemoryError as exc:
        h.evidence("rank %d: ok-flag allocation failed after the failed buffer (sticky error): %s"
                   % (h.RANK, str(exc).splitlines()[0]))
        raise RegistrationFailed() from exc
    return buf if all_reduce_min(dist, flag) == 1 else None


REGISTER = {
    "naive": register_naive,
    "synchronized": register_synchronized,
    "flag-after-alloc": register_flag_after_alloc,
}


def pipeline_hand_off(dist, rank, world):
    """The plain path's first step: activations go from rank r to rank r+1 point-to-point."""
    data = h.alloc(4096 * 4, torch.float32).fill_(float(rank))
    if rank > 0:
        h.point_to_point("recv from rank %d" % (rank - 1), dist.recv, data, src=rank - 1)
    if rank < world - 1:
        h.point_to_point("send to rank %d" % (rank + 1), dist.send, data, dst=rank + 1)
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--mib", type=int, default=64)
    opts = parser.parse_args()

    variant = h.VARIANT or "naive"
    if variant not in REGISTER:
        h.result("error", "unknown variant %r" % variant)
        h.finish(2)
    dist = h.init_distributed(timeout_s=int(os.environ.get("HEADROOM_PG_TIMEOUT_S", "1800")))
    rank, world = dist.get_rank(), dist.get_world_size()
    if world < 2:
        h.result("error", "needs at least 2 ranks (got %d)" % world)
        h.finish(2)
    fail_rank = opts.fail_rank if opts.fail_rank >= 0 else world - 1
    failing = rank == fail_rank
    if failing:
        h.evidence("rank %d: injecting the allocation failure through %s" % (rank, h.injector.mechanism))

    warm = h.alloc(1024 * 4, torch.float32).fill_(1.0)
    h.collective("all_reduce(warm-up)", dist.all_reduce, warm)
    h.progress("communicator warm (%s)" % float(warm[0].item()))

    try:
        buf = REGISTER[variant](dist, opts.mib * MiB, failing)
    except RegistrationFailed:
        h.drain()
        h.progress("rank %d: registration failed, falling back alone" % rank)
        buf = None
    path = "registered" if buf is not None else "fallback"
    h.progress("rank %d: taking the %s path" % (rank, path))
    data = pipeline_hand_off(dist, rank, world) if buf is None else h.alloc(4096 * 4, torch.float32).fill_(float(rank))
    h.collective("all_reduce(step)", dist.all_reduce, data)
    total = float(data[0].item())
    h.metric("path", path)
    h.metric("allReduceResult", total)
    print("rank %d finished the step on the %s path (all_reduce -> %s)" % (rank, path, total), flush=True)
    h.result("completed", "rank %d finished on the %s path" % (rank, path))
    h.finish(0)


if __name__ == "__main__":
    main()
