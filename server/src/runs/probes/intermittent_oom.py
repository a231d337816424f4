"""intermittent-oom: A step loop that runs out of memory after a varying number of steps

Seed: 003
Needs GPU: yes
Min ranks: 1
Variants: fits, fragmenting, racing, over-plan

What it shows: the table seed 003's authors built by hand: repeat the same training-like step
loop (resident fp32 weight and two AdamW moments replaced every step, plus activations) under a
memory cap, and record after how many steps it runs out of memory, per repeat. Run it with
--repeat N: the outcome matrix then is the distribution of steps-before-OOM. At each OOM the
probe states a hint from the allocator's numbers at that moment:
- race: the request would have fit but for memory another thread held at that instant;
- fragmentation: PyTorch's cache held more free-but-split memory than the request;
- plan: live tensors plus the request exceed the cap (the plan itself is too big).

Variants:
- fits: a plan well under the cap. Expected: no OOM in --steps steps.
- fragmenting: activations of random sizes, every other one kept alive a few steps (holes).
- racing: a worker thread uploads 256-768 MiB buffers at random moments while the step runs (the
  seed's layer-worker uploads).
- over-plan: the resident state alone exceeds the cap. Expected: OOM at step 0.

Options: --steps N (default 25), --cap-gib G (default 4), --seed S (default: the repeat number).
"""
import argparse
import random
import re
import threading
import time

import headroom_harness as h

import torch  # noqa: E402

MiB = 1024 * 1024
GiB = 1024 * MiB


class Worker(threading.Thread):
    """Allocates upload buffers at random moments; `inflight` is what it holds right now."""

    def __init__(self, device, rng):
        super().__init__(name="upload-worker", daemon=True)
        self.device, self.rng = device, rng
        self.inflight = 0
        self.stop = threading.Event()
        self.oom = None

    def run(self):
        while not self.stop.is_set():
            size = self.rng.randint(256, 768) * MiB
            try:
                buf = torch.empty(size, dtype=torch.uint8, device=self.device)
                self.inflight = size
                time.sleep(self.rng.uniform(0.001, 0.02))
                del buf
            except torch.cuda.OutOfMemoryError as exc:
                self.oom = exc
                return
            finally:
                self.inflight = 0
            time.sleep(self.rng.uniform(0.0, 0.02))


SIZE = r"([\d.]+) (GiB|MiB|KiB|B)"
UNITS = {"GiB": GiB, "MiB": MiB, "KiB": 1024, "B": 1}


def size_after(pattern, text):
    m = re.search(pattern + SIZE, text)
    return int(float(m.group(1)) * UNITS[m.group(2)]) if m else None


def hint(exc, cap, worker_bytes):
    """Race, fragmentation or plan, from the numbers PyTorch printed at the moment of the OOM.

    The message's numbers are taken when the allocation failed; by the time the exception is
    handled, the failed statement's temporaries are gone and the live counters have moved on.
    """
    text = str(exc)
    request = size_after(r"Tried to allocate ", text) or 0
    allocated = size_after(r"Of the allocated memory ", text) or 0
    split_free = size_after(r"and ", text.split("is allocated by PyTorch", 1)[-1]) or 0
    if worker_bytes and allocated - worker_bytes + request <= cap:
        return "race", "would have fit without the %d MiB another thread held at that instant" % (worker_bytes // MiB)
    if split_free >= request > 0:
        return "fragmentation", "the cache held %d MiB free but split, more than the %d MiB requested" % (
            split_free // MiB, request // MiB)
    return "plan", "live tensors %d MiB + request %d MiB exceed the %d MiB cap" % (allocated // MiB, request // MiB, cap // MiB)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=25)
    parser.add_argument("--cap-gib", type=float, default=4.0)
    parser.add_argument("--seed", type=int, default=-1)
    opts = parser.parse_args()
    variant = h.VARIANT or "fits"
    h.require_gpu("the OOM is the device allocator's")
    device = h.torch_device()
    cap = int(opts.cap_gib * GiB)
    torch.cuda.set_per_process_memory_fraction(min(1.0, cap / torch.cuda.get_device_properties(device).total_memory), device)
    rng = random.Random(opts.seed if opts.seed >= 0 else h.REPEAT)
    state_mib = {"fits": 128, "fragmenting": 192, "racing": 256, "over-plan": 1536}[variant]
    worker = None
    steps_done = 0
    kept = []
    try:
        w, m, v = (torch.zeros(state_mib * MiB // 4, device=device) for _ in range(3))
        if variant == "racing":
            worker = Worker(device, random.Random(rng.random()))
            worker.start()
        for step in range(opts.steps):
            if variant == "fits":
                acts = [torch.empty(rng.randint(64, 256) * MiB, dtype=torch.uint8, device=device) for _ in range(4)]
            elif variant == "fragmenting":
                acts = [torch.empty(rng.randint(40, 200) * MiB, dtype=torch.uint8, device=device) for _ in range(8)]
                kept = (kept + acts[::2])[-12:]  # every other activation lives on: holes between survivors
                torch.empty(rng.randint(300, 700) * MiB, dtype=torch.uint8, device=device)
            else:
                acts = [torch.empty(rng.randint(300, 600) * MiB, dtype=torch.uint8, device=device) for _ in range(4)]
            # The optimizer replaces its state every step, freeing the old tensors after the new exist.
            w, m, v = w.clone(), m.clone(), v.clone()
            del acts
            steps_done = step + 1
            h.progress("step %d" % step)
    except torch.cuda.OutOfMemoryError as exc:
        worker_bytes = worker.inflight if worker else 0
        kind, why = hint(exc, cap, worker_bytes)
        h.metric("stepsBeforeOom", steps_done)
        h.metric("hint", kind)
        h.evidence("OOM after %d step(s): %s" % (steps_done, str(exc).split(". ")[0]))
        h.evidence("hint: %s: %s" % (kind, why))
        h.result("catchable-oom", "OOM after %d of %d steps (hint: %s)" % (steps_done, opts.steps, kind))
        h.finish(0)
    finally:
        if worker:
            worker.stop.set()
    if worker and worker.oom is not None:
        h.metric("stepsBeforeOom", steps_done)
        h.metric("hint", "race")
        h.evidence("the upload worker ran out of memory: %s" % str(worker.oom).split(". ")[0])
        h.result("catchable-oom", "the worker thread's upload failed during step %d (hint: race)" % steps_done)
        h.finish(0)
    h.metric("stepsBeforeOom", "none")
    h.result("completed", "%d of %d steps without OOM" % (steps_done, opts.steps))
    h.finish(0)


if __name__ == "__main__":
    main()
