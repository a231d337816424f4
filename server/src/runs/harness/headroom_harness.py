"""Headroom's in-rank harness: imported by every probe (and around the user's own script).

What it does inside one rank process:
- reports events to the supervisor as JSON lines in the file named by HEADROOM_EVENTS
  (progress, collectives entered and left, memory samples, the probe's own result);
- registers faulthandler on SIGUSR1 so the supervisor can take every thread's Python stack at a
  hang, written to HEADROOM_STACKS;
- samples memory every 100 ms on a daemon thread, and watches the main thread's Python frame: a
  frame that moves counts as progress, a frame stuck in a C call does not;
- injects device allocation failures for the fault-injection variants: through the preload shim
  when it is loaded (the real cudaMalloc/hipMalloc path), otherwise in Python (CPU runs), raising
  the same torch.cuda.OutOfMemoryError either way.

Stdlib only at import time; torch is imported lazily so the harness also wraps scripts that
import torch themselves later.
"""
import ctypes
import faulthandler
import json
import os
import signal
import sys
import threading
import time

_T0 = time.monotonic()
_lock = threading.Lock()
_events = None
_stacks = None
_collectives_entered = 0
_collectives_left = 0

RANK = int(os.environ.get("RANK", "0"))
WORLD_SIZE = int(os.environ.get("WORLD_SIZE", "1"))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", str(RANK)))
VARIANT = os.environ.get("HEADROOM_VARIANT", "")
REPEAT = int(os.environ.get("HEADROOM_REPEAT", "1"))
CELL_DIR = os.environ.get("HEADROOM_CELL_DIR", ".")


def _elapsed_ms():
    return int((time.monotonic() - _T0) * 1000)


def emit(kind, **fields):
    """Writes one event line; flushed at once so the supervisor sees it even if the rank then blocks."""
    if _events is None:
        return
    record = {"ev": kind, "rank": RANK, "tMs": _elapsed_ms()}
    record.update(fields)
    line = json.dumps(record, separators=(",", ":")) + "\n"
    with _lock:
        _events.write(line)
        _events.flush()


def progress(message, **fields):
    """Tells the watchdog the rank is moving; `message` also shows in the run's live view."""
    emit("progress", message=message, **fields)


def metric(name, value):
    """A number (or short string) the probe measured; collected into the cell's metrics."""
    emit("metric", name=name, value=value)


def evidence(text):
    """One line of evidence for the cell's outcome."""
    emit("evidence", text=text)


def result(outcome, text=None):
    """The probe's own reading of how the cell went (completed, catchable-oom, abort, hang, error)."""
    emit("result", outcome=outcome, text=text)


def _caller_site(depth=2):
    frame = sys._getframe(depth)
    return "%s:%d in %s" % (os.path.basename(frame.f_code.co_filename), frame.f_lineno, frame.f_code.co_name)


def collective(name, fn, *args, **kwargs):
    """Runs one collective, recording that this rank entered and left it (for naming the laggard)."""
    global _collectives_entered, _collectives_left
    _collectives_entered += 1
    seq = _collectives_entered
    emit("enter", op=name, seq=seq, site=_caller_site())
    out = fn(*args, **kwargs)
    _wait_for_device()
    _collectives_left += 1
    emit("leave", op=name, seq=seq)
    return out


def _wait_for_device():
    """NCCL returns from a collective once it is queued; a rank has left it only when the device has."""
    torch = sys.modules.get("torch")
    if torch is not None and torch_device().type == "cuda":
        torch.cuda.synchronize()


def point_to_point(name, fn, *args, **kwargs):
    """Like collective() for send/recv, which are not counted in the collective sequence."""
    emit("p2p", op=name, site=_caller_site())
    out = fn(*args, **kwargs)
    _wait_for_device()
    emit("p2p-done", op=name)
    return out


# ---------------------------------------------------------------------------------------------
# Device helpers

def torch_device():
    """`cuda:<local rank>` when a GPU is there, else `cpu` (also when the supervisor asked for CPU)."""
    import torch
    if torch.cuda.is_available() and os.environ.get("HEADROOM_DEVICE") != "cpu":
        return torch.device("cuda", LOCAL_RANK % torch.cuda.device_count())
    return torch.device("cpu")


def backend():
    return "nccl" if torch_device().type == "cuda" else "gloo"


def init_distributed(timeout_s=1800):
    """Joins the process group the supervisor set up (MASTER_ADDR/PORT, RANK, WORLD_SIZE)."""
    import datetime
    import torch
    import torch.distributed as dist
    if torch_device().type == "cuda":
        torch.cuda.set_device(torch_device())
    dist.init_process_group(backend(), timeout=datetime.timedelta(seconds=timeout_s))
    progress("process group ready (%s, world size %d)" % (backend(), dist.get_world_size()))
    return dist


def allocator_settings(settings):
    """Sets PYTORCH_CUDA_ALLOC_CONF (also read by ROCm builds) before torch loads; returns the string."""
    if "torch" in sys.modules:
        raise RuntimeError("allocator settings must be applied before torch is imported")
    if settings:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = settings
        evidence("allocator settings: PYTORCH_CUDA_ALLOC_CONF=%s" % settings)
    return settings


def memory_state():
    """Device free, reserved, allocated and reclaimable bytes right now (CUDA/ROCm)."""
    import torch
    free, total = torch.cuda.mem_get_info()
    reserved, allocated = torch.cuda.memory_reserved(), torch.cuda.memory_allocated()
    return {"deviceFreeBytes": free, "deviceTotalBytes": total, "reservedBytes": reserved,
            "allocatedBytes": allocated, "reclaimableBytes": reserved - allocated}


def require_gpu(reason):
    """Ends the rank with a clear `error` result when there is no GPU (the probe means nothing on CPU)."""
    import torch
    if torch.cuda.is_available():
        return
    result("error", "needs a GPU: %s; torch %s on this host sees no CUDA or ROCm device" % (reason, torch.__version__))
    finish(0)


def finish(code=0):
    """Flushes and leaves the rank without running interpreter teardown (which can hang after a desync)."""
    emit("exit", code=code)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# ---------------------------------------------------------------------------------------------
# Fault injection

class _Injector:
    """Device allocation failures on this rank, like a runtime's sticky out-of-memory error.

    With the preload shim loaded, `arm()` sets its byte budget to what is allocated now, so the next
    cudaMalloc/hipMalloc fails for real; without it (CPU), `check()` raises in Python.
    """

    def __init__(self):
        self.armed = False
        self.sticky = False
        self.failures = 0
        self._shim = None
        try:
            lib = ctypes.CDLL(None)
            configure = lib.headroom_fault_configure
            configure.argtypes = [ctypes.c_longlong, ctypes.c_longlong, ctypes.c_int]
            configure.restype = ctypes.c_int
            self._shim = configure
        except (AttributeError, OSError):
            self._shim = None

    @property
    def mechanism(self):
        return "preload shim (cudaMalloc/hipMalloc)" if self._shim is not None and _on_gpu() else "Python (CPU run)"

    def arm(self, sticky):
        self.armed = True
        self.sticky = sticky
        if self._shim is not None and _on_gpu():
            # A budget of 0 new bytes: every device allocation from here on fails until drained.
            self._shim(0, 0, 1 if sticky else 0)

    def disarm(self):
        self.armed = False
        if self._shim is not None and _on_gpu():
            self._shim(-1, 0, 0)

    def check(self, nbytes):
        if not self.armed or (self._shim is not None and _on_gpu()):
            return
        import torch
        self.failures += 1
        raise torch.cuda.OutOfMemoryError(
            "Headroom injected out of memory: tried to allocate %d bytes on rank %d (injection #%d)" % (nbytes, RANK, self.failures))


def _on_gpu():
    return torch_device().type == "cuda"


injector = _Injector()


def alloc(nbytes, dtype=None):
    """Allocates a device tensor of `nbytes` through the injector (the probe's device allocations)."""
    import torch
    injector.check(nbytes)
    dtype = dtype or torch.uint8
    itemsize = torch.tensor([], dtype=dtype).element_size()
    try:
        return torch.empty(max(1, nbytes // itemsize), dtype=dtype, device=torch_device())
    except RuntimeError as exc:
        # With PyTorch's cache off (PYTORCH_NO_CUDA_MEMORY_CACHING=1) a failed cudaMalloc surfaces as
        # a generic "CUDA error: out of memory", not OutOfMemoryError: give probes one type to catch.
        if isinstance(exc, torch.cuda.OutOfMemoryError) or not is_oom(exc):
            raise
        raise torch.cuda.OutOfMemoryError(str(exc)) from exc


def risky_alloc(nbytes, sticky):
    """The allocation that fails on purpose on this rank (the seed's ncclMemAlloc).

    Raises torch.cuda.OutOfMemoryError. With `sticky`, later allocations keep failing until drain(),
    as a sticky CUDA error does; without it, only this one fails.
    """
    injector.arm(sticky)
    try:
        return alloc(nbytes)
    finally:
        if not sticky:
            injector.disarm()


def drain():
    """Clears a sticky injected error (the seed's cudaGetLastError after the failed allocation)."""
    injector.disarm()


def is_oom(exc):
    text = str(exc)
    return type(exc).__name__ == "OutOfMemoryError" or "out of memory" in text.lower()


# ---------------------------------------------------------------------------------------------
# Sampling thread: memory and main-thread frame movement

def _memory_sample():
    try:
        torch = sys.modules.get("torch")
        if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            # cudaMemGetInfo from this thread would break another thread's capture in global mode;
            # probes that capture turn it off and keep the allocator's own counters (no CUDA call).
            free = torch.cuda.mem_get_info()[0] if os.environ.get("HEADROOM_SAMPLE_DEVICE_FREE") != "0" else None
            return torch.cuda.memory_allocated(), torch.cuda.memory_reserved(), free
    except Exception:  # noqa: BLE001 -- sampling must never take the rank down
        pass
    try:
        with open("/proc/self/statm") as f:
            rss = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        return rss, rss, None
    except (OSError, ValueError):
        return None


def _main_frame_site(main_ident):
    frame = sys._current_frames().get(main_ident)
    if frame is None:
        return None
    return (frame.f_code.co_filename, frame.f_lineno)


def _sampler(main_ident, period_s):
    last_site = None
    while True:
        time.sleep(period_s)
        sample = _memory_sample()
        if sample is not None:
            allocated, reserved, free = sample
            fields = {"allocatedBytes": allocated, "reservedBytes": reserved}
            if free is not None:
                fields["deviceFreeBytes"] = free
            emit("mem", **fields)
        site = _main_frame_site(main_ident)
        # Loading an extension module (libtorch) is one long C call; on a loaded host it can outlast
        # the hang window, so an import in progress counts as progress on every tick.
        importing = site is not None and site[0].startswith("<frozen importlib")
        if site is not None and (site != last_site or importing):
            last_site = site
            emit("moved", file=site[0], line=site[1])


def start():
    """Opens the event and stack files and starts the sampler; called once at import."""
    global _events, _stacks
    path = os.environ.get("HEADROOM_EVENTS")
    if path:
        _events = open(path, "a", buffering=1)
    stacks_path = os.environ.get("HEADROOM_STACKS")
    if stacks_path:
        _stacks = open(stacks_path, "w")
        faulthandler.register(signal.SIGUSR1, file=_stacks, all_threads=True, chain=False)
    if not faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr, all_threads=True)
    period_ms = int(os.environ.get("HEADROOM_SAMPLE_MS", "100"))
    thread = threading.Thread(target=_sampler, args=(threading.main_thread().ident, period_ms / 1000.0),
                              name="headroom-sampler", daemon=True)
    thread.start()
    emit("start", pid=os.getpid(), variant=VARIANT, repeat=REPEAT, worldSize=WORLD_SIZE)


start()
