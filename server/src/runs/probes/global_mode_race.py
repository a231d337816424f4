"""global-mode-race: One thread toggles process-global device state while another allocates

Seed: 003
Needs GPU: no
Min ranks: 1
Variants: no-lock, process-lock, thread-local-mode

What it shows: seed 003 (a process-global memory-type flag, set by graph calls, misroutes
allocations made on another thread). On CUDA the analogue is graph capture in PyTorch's default
global capture mode: while one thread captures, a cudaMalloc from another thread fails with
"operation not permitted when stream is capturing". One thread captures `(x @ x).relu() @ x` into
CUDA graphs on a side stream; another allocates 1-97 MiB tensors; each trial lasts --seconds.
Measured on an H200 (3 s trials): no lock -> 114 of 254,345 allocations failed; a process-wide
lock -> 0; capture_error_mode="thread_local" -> 0.
The capturing thread warms up on itself first (cuBLAS handles are per thread; a cold capture
fails on its own), and each trial is its own process (a cell), since a failed capture can poison
later ones.

The built-in form needs a CUDA GPU (elsewhere it reports that and stops).
Generic form: --graph-call MODULE:FUNCTION and --allocation MODULE:FUNCTION take the two
callables from the user's own module (imported from the working directory), for runtimes other
than CUDA (an NPU's graph call and upload, or a pure-Python model of the race); the first runs in
a loop on one thread, the second on another, with the lock around both in process-lock. An
exception from the allocation callable whose text says "out of memory" makes the cell
catchable-oom, as seed 003's misrouted uploads were.

Variants:
- no-lock: the race as shipped. Expected: allocation failures (outcome error, with counts).
- process-lock: one process-wide lock around each capture and each allocation (the seed's fix).
- thread-local-mode: capture_error_mode="thread_local" (the CUDA form of the seed's request that
  the mode be thread-local).
"""
import argparse
import importlib
import os
import random
import sys
import threading
import time

os.environ["HEADROOM_SAMPLE_DEVICE_FREE"] = "0"  # the sampler must not make CUDA calls during a capture

import headroom_harness as h  # noqa: E402

MiB = 1024 * 1024


def load_callable(spec):
    module_name, _, function = spec.partition(":")
    sys.path.insert(0, os.getcwd())
    return getattr(importlib.import_module(module_name), function)


class Counts:
    def __init__(self):
        self.ok = 0
        self.failed = 0
        self.first_error = None

    def fail(self, exc):
        self.failed += 1
        if self.first_error is None:
            self.first_error = "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0] if str(exc).strip() else "")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--graph-call")
    parser.add_argument("--allocation")
    opts = parser.parse_args()
    variant = h.VARIANT or "no-lock"
    generic = bool(opts.graph_call or opts.allocation)
    if generic and not (opts.graph_call and opts.allocation):
        h.result("error", "the generic form needs both --graph-call and --allocation")
        h.finish(2)
    if generic and variant == "thread-local-mode":
        h.result("error", "thread-local-mode applies to CUDA graph capture, not to user callables")
        h.finish(2)
    if not generic:
        h.require_gpu("the CUDA analogue races graph capture against cudaMalloc")
    import torch

    lock = threading.Lock() if variant == "process-lock" else None
    stop = threading.Event()
    captures, allocations = Counts(), Counts()
    ready = threading.Event()

    if generic:
        graph_call, allocate = load_callable(opts.graph_call), load_callable(opts.allocation)
    else:
        device = h.torch_device()
        mode = "thread_local" if variant == "thread-local-mode" else "global"
        x = torch.randn(1024, 1024, device=device)

        def graph_call():
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=side, capture_error_mode=mode):
                (x @ x).relu() @ x
            return graph

        def allocate():
            t = torch.empty(random.randint(1, 97) * MiB, dtype=torch.uint8, device=device)
            del t

    def guarded(fn):
        if lock is None:
            return fn()
        with lock:
            return fn()

    def capturer():
        global side
        if not generic:
            side = torch.cuda.Stream()
            with torch.cuda.stream(side):  # warm-up on this thread and stream: cuBLAS handles are per thread
                (x @ x).relu() @ x
            side.synchronize()
        ready.set()
        while not stop.is_set():
            try:
                guarded(graph_call)
                captures.ok += 1
            except Exception as exc:  # noqa: BLE001 -- a failed capture is counted, not fatal
                captures.fail(exc)

    def allocator():
        ready.wait()
        while not stop.is_set():
            try:
                guarded(allocate)
                allocations.ok += 1
            except Exception as exc:  # noqa: BLE001 -- the failure being measured
                allocations.fail(exc)

    threads = [threading.Thread(target=capturer, name="capture"), threading.Thread(target=allocator, name="allocate")]
    for t in threads:
        t.start()
    ready.wait()
    deadline = time.monotonic() + opts.seconds
    while time.monotonic() < deadline:
        time.sleep(0.25)
        h.progress("captures %d/%d failed, allocations %d/%d failed"
                   % (captures.failed, captures.ok + captures.failed, allocations.failed, allocations.ok + allocations.failed))
    stop.set()
    for t in threads:
        t.join()
    for name, counts in (("captures", captures), ("allocations", allocations)):
        h.metric(name + "Ok", counts.ok)
        h.metric(name + "Failed", counts.failed)
        if counts.first_error:
            h.evidence("first failed %s: %s" % (name[:-1], counts.first_error))
    summary = ("%s: %d of %d allocations failed, %d of %d captures failed in %.1f s"
               % (variant, allocations.failed, allocations.ok + allocations.failed, captures.failed,
                  captures.ok + captures.failed, opts.seconds))
    print(summary, flush=True)
    if allocations.failed:
        h.result("catchable-oom" if allocations.first_error and "out of memory" in allocations.first_error.lower() else "error",
                 "race reproduced: " + summary)
    else:
        h.result("completed", summary)
    h.finish(0)


side = None

if __name__ == "__main__":
    main()
