"""script: The user's own entry point under Headroom's harness

Seed: -
Needs GPU: no
Min ranks: 1
Variants: as-is, expandable-segments, max-split-512

What it shows: the user's script, run as `python ENTRY ARGS...` on every rank (RANK, WORLD_SIZE,
MASTER_ADDR and MASTER_PORT set as torchrun would), with Headroom's instruments around it:
- memory history recording (`torch.cuda.memory._record_memory_history`, a bounded ring buffer of
  --max-entries entries, stacks="python");
- an OOM observer that writes a snapshot per rank at the OOM (oom_snapshot_rank<R>.pickle in the
  cell directory), before the exception reaches the script;
- memory sampling every 100 ms and the watchdog's stacks on a hang (faulthandler), and the
  preload shim's crash capture and fault injection (HEADROOM_FAULT_* in --env).
The outcome is the script's: completed (exit 0), catchable-oom (an OutOfMemoryError escaped),
abort (a signal), hang, or error.

Usage: headroom repro run script --target local [--variant V]... -- train.py --its --args
Options (before the entry point): --max-entries N (default 100000).

Variants (PYTORCH_CUDA_ALLOC_CONF):
- as-is: the script's own environment.
- expandable-segments: expandable_segments:True.
- max-split-512: max_split_size_mb:512.
"""
import os
import runpy
import sys
import traceback

import headroom_harness as h

SETTINGS = {"as-is": "", "expandable-segments": "expandable_segments:True", "max-split-512": "max_split_size_mb:512"}


def parse_args(argv):
    max_entries = 100000
    while argv and argv[0].startswith("--"):
        if argv[0] == "--max-entries" and len(argv) > 1:
            max_entries = int(argv[1])
            argv = argv[2:]
        else:
            break
    return max_entries, argv


def instrument(max_entries):
    """Memory history and the OOM observer, when torch with a GPU is importable; never fatal."""
    try:
        import torch
    except ImportError:
        h.evidence("torch is not importable here: only faulthandler, sampling and the shim watch the script")
        return
    if not torch.cuda.is_available():
        return
    try:
        torch.cuda.memory._record_memory_history(max_entries=max_entries, stacks="python")
    except TypeError:  # PyTorch before 2.1 has the boolean form only
        torch.cuda.memory._record_memory_history(True, trace_alloc_max_entries=max_entries)
    snapshot = os.path.join(h.CELL_DIR, "oom_snapshot_rank%d.pickle" % h.RANK)

    def on_oom(device, alloc, device_total, device_free):
        torch.cuda.memory._dump_snapshot(snapshot)
        h.evidence("OOM observer: device %d, %d bytes requested, %d of %d bytes free; snapshot %s"
                   % (device, alloc, device_free, device_total, snapshot))
        h.metric("oomSnapshot", snapshot)

    torch._C._cuda_attach_out_of_memory_observer(on_oom)


def main():
    variant = h.VARIANT or "as-is"
    if variant not in SETTINGS:
        h.result("error", "unknown variant %r" % variant)
        h.finish(2)
    h.allocator_settings(SETTINGS[variant])
    max_entries, argv = parse_args(sys.argv[1:])
    if not argv:
        h.result("error", "no entry point: pass the script after --, e.g. -- train.py --epochs 1")
        h.finish(2)
    entry = argv[0]
    if not os.path.isfile(entry):
        h.result("error", "entry point %s not found (working directory %s)" % (entry, os.getcwd()))
        h.finish(2)
    instrument(max_entries)
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(entry)))
    h.progress("running %s" % entry)
    code = 0
    try:
        runpy.run_path(os.path.abspath(entry), run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException as exc:  # noqa: BLE001 -- the script's failure is the finding
        traceback.print_exc()
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        h.result("catchable-oom" if h.is_oom(exc) else "error", "%s: %s" % (type(exc).__name__, first))
        h.finish(1)
    h.result("completed" if code == 0 else "error", "%s exited with code %d" % (entry, code))
    h.finish(code)


if __name__ == "__main__":
    main()
