"""Headroom's run supervisor: runs every cell of one run on the target machine.

    python3 supervisor.py PLAN.json

It runs where the GPUs are (the local machine, or an SSH host or Slurm allocation later), needs
only the standard library, and talks to the server through JSON lines on stdout:
  {"type": "environment", "environment": {...}}
  {"type": "cell-started", "variant": V, "repeat": N}
  {"type": "output", "variant": V, "repeat": N, "rank": R, "text": "..."}
  {"type": "cell", "cell": {...}}          (also written to cells/<variant>.<repeat>/result.json)
  {"type": "done"}
Everything is also on disk under the plan's work directory, so a server that lost the stream
(killed, or a dropped SSH link) can collect finished cells from the files.

Per cell it starts `ranks` processes in one new process group (RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT set, the preload shim in LD_PRELOAD when it could be built), follows their event
files, and acts as the watchdog: no progress from any rank for `hangWindowSeconds` -> every
rank's Python stacks (faulthandler on SIGUSR1, py-spy when installed), the flight-recorder dumps
when PyTorch wrote them, the diverging rank named, then the whole group killed.
SIGTERM (cancel) kills the running cell's group before exiting, so no process is left behind.
"""
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
POLL_S = 0.05
# Every live rank blocked in a collective or send/recv, and they disagree on the collective count:
# no rank can move again, so the verdict does not wait for the whole hang window.
DESYNC_CONFIRM_S = 3.0
STACK_WAIT_S = 3.0
MAX_SAMPLES_PER_RANK = 600
SEVERITY = ["completed", "catchable-oom", "error", "abort", "hang"]
GPU_ENV_DEFAULTS = {
    # Multicast NVLink paths are off on the machines Headroom was measured on; keep every rank consistent.
    "NCCL_NVLS_ENABLE": "0",
    "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
    "NVSHMEM_DISABLE_NVLS": "1",
}

_current_pgid = None


def emit(record):
    sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def write_json_atomic(path, value):
    tmp = "%s.tmp.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(value, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def die_with_parent():
    """Linux: the kernel sends SIGTERM to this process when the server that started it dies."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def kill_group(pgid):
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def on_sigterm(_signum, _frame):
    if _current_pgid is not None:
        kill_group(_current_pgid)
    emit({"type": "cancelled"})
    os._exit(143)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def preflight(python, work_dir):
    try:
        out = subprocess.run([python, os.path.join(HERE, "preflight.py")], capture_output=True, text=True, timeout=120)
        env = json.loads(out.stdout.strip().splitlines()[-1])
    except (subprocess.SubprocessError, ValueError, IndexError, OSError) as exc:
        env = {"python": python, "pythonVersion": "?", "platform": "cpu", "devices": [], "distributedBackends": [],
               "hostname": socket.gethostname(), "torchError": "preflight failed: %s" % exc}
    write_json_atomic(os.path.join(work_dir, "environment.json"), env)
    return env


def build_shim(plan, env, work_dir):
    """Compiles the preload shim with the target's own compiler; None (faulthandler only) when impossible."""
    source = plan.get("shimSource")
    compiler = env.get("compiler")
    if not source or not os.path.exists(source) or not compiler or plan.get("shim") == "off":
        return None, "preload shim not used (%s)" % ("turned off" if plan.get("shim") == "off" else
                                                      "no C compiler on this host" if not compiler else "no shim source")
    out = os.path.join(work_dir, "headroom_preload.so")
    cmd = [compiler, "-shared", "-fPIC", "-O2", "-o", out, source, "-ldl", "-lpthread"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, "preload shim failed to build with %s: %s" % (compiler, proc.stderr.strip()[:400])
    return out, "preload shim built with %s" % compiler


# ---------------------------------------------------------------------------------------------
# One rank's files

class Rank:
    def __init__(self, index, cell_dir):
        self.index = index
        self.events_path = os.path.join(cell_dir, "rank%d.events.jsonl" % index)
        self.log_path = os.path.join(cell_dir, "rank%d.log" % index)
        self.stacks_path = os.path.join(cell_dir, "rank%d.stacks.txt" % index)
        self.crash_path = os.path.join(cell_dir, "rank%d.crash.txt" % index)
        self.proc = None
        self.events_pos = 0
        self.events_tail = ""
        self.log_pos = 0
        self.entered = 0
        self.left = 0
        self.last_enter = None
        self.p2p = None
        self.last_site = None
        self.results = []
        self.evidence = []
        self.metrics = {}
        self.memory = []

    def read_events(self):
        """New complete event lines since the last call; returns True when one of them is progress."""
        moved = False
        try:
            with open(self.events_path) as f:
                f.seek(self.events_pos)
                chunk = f.read()
                self.events_pos = f.tell()
        except FileNotFoundError:
            return False
        data = self.events_tail + chunk
        lines = data.split("\n")
        self.events_tail = lines.pop()
        for line in lines:
            try:
                ev = json.loads(line)
            except ValueError:
                continue
            kind = ev.get("ev")
            if kind != "mem":
                moved = True
            if kind == "mem":
                sample = {"tMs": ev["tMs"], "allocatedBytes": ev["allocatedBytes"], "reservedBytes": ev["reservedBytes"]}
                if "deviceFreeBytes" in ev:
                    sample["deviceFreeBytes"] = ev["deviceFreeBytes"]
                self.memory.append(sample)
            elif kind == "enter":
                self.entered = ev["seq"]
                self.last_enter = ev
            elif kind == "leave":
                self.left = ev["seq"]
            elif kind == "p2p":
                self.p2p = ev
            elif kind == "p2p-done":
                self.p2p = None
            elif kind == "moved":
                self.last_site = ev
            elif kind == "result":
                self.results.append(ev)
            elif kind == "evidence":
                self.evidence.append(ev["text"])
            elif kind == "metric":
                self.metrics[ev["name"]] = ev["value"]
        return moved

    def read_log(self):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(self.log_pos)
                chunk = f.read(1 << 16)
                self.log_pos = f.tell()
        except FileNotFoundError:
            return ""
        return chunk.decode("utf-8", "replace")

    def log_text(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return ""


# ---------------------------------------------------------------------------------------------
# Stacks and the hang analysis

THREAD_HEADER = re.compile(r"^(Current thread|Thread) (0x[0-9a-f]+)")
FRAME_LINE = re.compile(r'^\s+File "([^"]+)", line (\d+) in (\S+)')
LIBRARY = re.compile(r"(site-packages|dist-packages|/lib/python\d[\d.]*/|headroom_harness\.py|^<)")


def parse_faulthandler(text):
    """Thread blocks of a faulthandler dump: [(header, [(file, line, function), ...innermost first])]."""
    blocks = []
    for line in text.splitlines():
        header = THREAD_HEADER.match(line)
        if header:
            blocks.append((line.strip(), []))
            continue
        frame = FRAME_LINE.match(line)
        if frame and blocks:
            blocks[-1][1].append((frame.group(1), int(frame.group(2)), frame.group(3)))
    return blocks


def main_thread_site(text):
    """Innermost user frame of the thread that runs the program (its outermost frame is <module>)."""
    for _header, frames in parse_faulthandler(text):
        if frames and frames[-1][2] == "<module>":
            for file, line, function in frames:
                if not LIBRARY.search(file):
                    return "%s:%d in %s" % (os.path.basename(file), line, function)
    return None


def desynced(ranks):
    """True when every live rank waits in a collective or send/recv and their collective counts differ."""
    live = [r for r in ranks if r.proc.poll() is None]
    if len(live) < 2 or len(live) < len(ranks):
        return False
    blocked = all(r.p2p is not None or r.entered > r.left for r in live)
    return blocked and len({r.entered for r in live}) > 1


def take_stacks(ranks):
    """SIGUSR1 to every live rank (faulthandler writes its threads' stacks), plus py-spy when installed."""
    live = [r for r in ranks if r.proc.poll() is None]
    sizes = {}
    for r in live:
        sizes[r.index] = os.path.getsize(r.stacks_path) if os.path.exists(r.stacks_path) else 0
        try:
            os.kill(r.proc.pid, signal.SIGUSR1)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + STACK_WAIT_S
    while time.monotonic() < deadline:
        if all(os.path.exists(r.stacks_path) and os.path.getsize(r.stacks_path) > sizes[r.index] for r in live):
            break
        time.sleep(POLL_S)
    time.sleep(0.1)  # let the last thread block finish writing
    stacks = {}
    # Native frames too, when the tools are installed: py-spy and PyStack attach to a live process.
    tools = [(name, shutil.which(name), args) for name, args in (("py-spy", ["dump", "--native", "--pid"]), ("pystack", ["remote"]))]
    for r in live:
        try:
            with open(r.stacks_path) as f:
                text = f.read()
        except FileNotFoundError:
            text = ""
        for name, path, args in tools:
            if not path:
                continue
            try:
                dump = subprocess.run([path] + args + [str(r.proc.pid)], capture_output=True, text=True, timeout=10)
                if dump.returncode == 0:
                    text += "\n--- %s ---\n%s" % (name, dump.stdout)
            except subprocess.SubprocessError:
                pass
        stacks[str(r.index)] = text.strip() or "(the rank wrote no stack: faulthandler did not answer SIGUSR1)"
    return stacks


def trigger_flight_recorder(ranks, cell_dir):
    """Asks PyTorch's NCCL flight recorder for a dump through its per-rank pipe, when it made one."""
    for r in ranks:
        pipe = os.path.join(cell_dir, "nccl_pipe_rank_%d.pipe" % r.index)
        if os.path.exists(pipe):
            try:
                fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
                os.write(fd, b"1\n")
                os.close(fd)
            except OSError:
                pass
    deadline = time.monotonic() + 2.0
    dumps = []
    while time.monotonic() < deadline:
        dumps = sorted(n for n in os.listdir(cell_dir) if n.startswith("nccl_trace_rank_") and not n.endswith(".pipe"))
        if len(dumps) >= len(ranks):
            break
        time.sleep(0.1)
    return [os.path.join(cell_dir, n) for n in dumps]


def analyze_hang(ranks, stacks):
    """Names the rank whose control flow left the others', from collective counts and stacks."""
    evidence = []
    sites = {}
    for r in ranks:
        site = main_thread_site(stacks.get(str(r.index), ""))
        if site is None and r.p2p:
            site = r.p2p.get("site")
        if site is None and r.last_enter:
            site = r.last_enter.get("site")
        sites[r.index] = site or "unknown"
    live = [r for r in ranks if r.proc.poll() is None]
    counts = {r.index: r.entered for r in ranks}
    diverging = None
    top = max(counts.values()) if counts else 0
    laggards = [i for i, c in counts.items() if c < top]
    waiting = [i for i, c in counts.items() if c == top]
    if laggards and top > 0:
        leader = next(r for r in ranks if r.index == waiting[0])
        op = leader.last_enter["op"] if leader.last_enter else "?"
        where = leader.last_enter.get("site", "?") if leader.last_enter else "?"
        for i in laggards:
            lag = next(r for r in ranks if r.index == i)
            detour = (" (blocked in %s)" % lag.p2p["op"]) if lag.p2p else ""
            evidence.append("rank %d never joined collective #%d %s (%s) that rank%s %s wait%s in; rank %d is at %s%s"
                            % (i, top, op, where, "s" if len(waiting) > 1 else "", ", ".join(map(str, waiting)),
                               "" if len(waiting) > 1 else "s", i, sites[i], detour))
        if len(laggards) == 1:
            diverging = laggards[0]
    else:
        groups = {}
        for i, site in sites.items():
            groups.setdefault(site, []).append(i)
        if len(groups) > 1:
            minority = min(groups.values(), key=len)
            if len(minority) == 1 and len(ranks) > 2:
                diverging = minority[0]
            evidence.append("ranks stopped at different places: " +
                            "; ".join("rank%s %s at %s" % ("s" if len(v) > 1 else "", ",".join(map(str, v)), k)
                                      for k, v in groups.items()))
        else:
            evidence.append("every rank waits at %s" % next(iter(groups)))
    dead = [r for r in ranks if r not in live]
    for r in dead:
        evidence.append("rank %d had already exited with code %s" % (r.index, r.proc.returncode))
    return diverging, evidence


# ---------------------------------------------------------------------------------------------
# Outcome of a finished cell

TRACEBACK_START = "Traceback (most recent call last):"


def signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return "signal %d" % number


def last_traceback(text):
    start = text.rfind(TRACEBACK_START)
    if start < 0:
        fatal = text.rfind("Fatal Python error")
        return text[fatal:].strip()[:8000] if fatal >= 0 else None
    return text[start:].strip()[:8000]


def classify(ranks, hang, evidence):
    outcome = "completed"

    def worse(candidate):
        nonlocal outcome
        if SEVERITY.index(candidate) > SEVERITY.index(outcome):
            outcome = candidate

    stacks = {}
    backtrace = None
    for r in ranks:
        code = r.proc.returncode
        reported = [ev["outcome"] for ev in r.results]
        for ev in r.results:
            if ev.get("text"):
                evidence.append("rank %d: %s" % (r.index, ev["text"]))
        if os.path.exists(r.crash_path) and os.path.getsize(r.crash_path) > 0:
            with open(r.crash_path, errors="replace") as f:
                crash = f.read().strip()
            backtrace = (backtrace + "\n\n" if backtrace else "") + "rank %d\n%s" % (r.index, crash)
            first = crash.splitlines()[0] if crash else "crash"
            evidence.append("rank %d: native crash captured by the preload shim: %s" % (r.index, first))
        if hang:
            continue
        log = r.log_text()
        if code is not None and code < 0:
            evidence.append("rank %d was killed by %s" % (r.index, signal_name(-code)))
            tb = last_traceback(log)
            if tb:
                stacks[str(r.index)] = tb
            worse("abort")
        elif code not in (0, None):
            tb = last_traceback(log)
            if tb:
                stacks[str(r.index)] = tb
        if code not in (0, None) and code > 0 and not reported:
            last = tb.strip().splitlines()[-1] if tb else "no traceback"
            if re.search(r"out of memory|OutOfMemoryError", last, re.I):
                evidence.append("rank %d raised an uncaught out-of-memory error: %s" % (r.index, last))
                worse("catchable-oom")
            else:
                evidence.append("rank %d exited with code %d: %s" % (r.index, code, last))
                worse("error")
        for item in reported:
            worse(item if item in SEVERITY else "error")
        if code == 0 and not reported:
            evidence.append("rank %d exited normally without reporting a result" % r.index)
    if hang:
        outcome = "hang"
    return outcome, stacks, backtrace


def downsample(samples):
    if len(samples) <= MAX_SAMPLES_PER_RANK:
        return samples
    step = len(samples) / float(MAX_SAMPLES_PER_RANK)
    return [samples[int(i * step)] for i in range(MAX_SAMPLES_PER_RANK)]


# ---------------------------------------------------------------------------------------------
# One cell

def rank_preexec(pgid_holder, index):
    supervisor = os.getpid()

    def preexec():
        # One process group per cell, in the supervisor's session (setpgid cannot cross sessions).
        os.setpgid(0, 0 if index == 0 else pgid_holder[0])
        try:
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: a rank never outlives its supervisor
        except (OSError, AttributeError):
            pass
        # The supervisor may have died between the fork and the prctl (a server killed just as a
        # cell starts): then no signal will ever come, so leave now.
        if os.getppid() != supervisor:
            os._exit(1)
    return preexec


def run_cell(plan, env_info, shim, notes, variant, repeat):
    global _current_pgid
    cell_dir = os.path.join(plan["workDir"], "cells", "%s.%d" % (variant, repeat))
    os.makedirs(cell_dir, exist_ok=True)
    ranks = [Rank(i, cell_dir) for i in range(plan["ranks"])]
    port = free_port()
    evidence = list(notes)
    started = time.monotonic()
    pgid_holder = [None]
    for r in ranks:
        env = dict(os.environ)
        for key, value in GPU_ENV_DEFAULTS.items():
            env.setdefault(key, value)
        env.update(plan.get("env", {}))
        env.update({
            "RANK": str(r.index), "LOCAL_RANK": str(r.index), "WORLD_SIZE": str(plan["ranks"]),
            "LOCAL_WORLD_SIZE": str(plan["ranks"]), "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
            "HEADROOM_VARIANT": variant, "HEADROOM_REPEAT": str(repeat), "HEADROOM_CELL_DIR": cell_dir,
            "HEADROOM_EVENTS": r.events_path, "HEADROOM_STACKS": r.stacks_path, "HEADROOM_CRASH_FILE": r.crash_path,
            "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": os.pathsep.join(p for p in [HERE, env.get("PYTHONPATH", "")] if p),
            "TORCH_NCCL_DEBUG_INFO_TEMP_FILE": os.path.join(cell_dir, "nccl_trace_rank_"),
            "TORCH_NCCL_DEBUG_INFO_PIPE_FILE": os.path.join(cell_dir, "nccl_pipe_rank_"),
        })
        # The flight recorder (off by default in shipped builds); both names, old and new.
        env.setdefault("TORCH_NCCL_TRACE_BUFFER_SIZE", "2000")
        env.setdefault("TORCH_FR_BUFFER_SIZE", env["TORCH_NCCL_TRACE_BUFFER_SIZE"])
        if plan.get("cpuCollectives"):
            env["HEADROOM_DEVICE"] = "cpu"
        if shim:
            env["LD_PRELOAD"] = " ".join(p for p in [shim, env.get("LD_PRELOAD", "")] if p)
        log = open(r.log_path, "wb")
        cmd = [plan["python"], "-X", "faulthandler", plan["probeFile"]] + list(plan.get("args", []))
        r.proc = subprocess.Popen(cmd, env=env, cwd=plan.get("cwd") or cell_dir, stdin=subprocess.DEVNULL, stdout=log,
                                  stderr=subprocess.STDOUT, preexec_fn=rank_preexec(pgid_holder, r.index))
        log.close()
        if r.index == 0:
            pgid_holder[0] = r.proc.pid
            _current_pgid = r.proc.pid
    write_json_atomic(os.path.join(cell_dir, "pgid.json"), {"pgid": pgid_holder[0]})

    window = float(plan["hangWindowSeconds"])
    limit = float(plan.get("cellTimeoutSeconds", 900))
    last_progress = time.monotonic()
    hang = False
    hang_timing = {}
    stacks = {}
    diverging = None
    while True:
        now = time.monotonic()
        for r in ranks:
            if r.read_events():
                last_progress = now
            text = r.read_log()
            if text:
                last_progress = now if plan.get("outputIsProgress") else last_progress
                emit({"type": "output", "variant": variant, "repeat": repeat, "rank": r.index, "text": text})
        if all(r.proc.poll() is not None for r in ranks):
            break
        quiet = now - last_progress
        desync = quiet > min(window, DESYNC_CONFIRM_S) and desynced(ranks)
        if quiet > window or desync or now - started > limit:
            hang = True
            if now - started > limit:
                evidence.append("the cell ran past its %d s limit" % limit)
            elif desync:
                evidence.append("desync: every rank blocked in a collective or send/recv, with different collective "
                                "counts, and no progress for %.1f s" % quiet)
            else:
                evidence.append("no progress from any rank for %.0f s (hang window %.0f s)" % (now - last_progress, window))
            stacks = take_stacks(ranks)
            dumps = trigger_flight_recorder(ranks, cell_dir) if env_info.get("platform") != "cpu" else []
            for path in dumps:
                evidence.append("flight recorder dump: %s" % path)
            for r in ranks:
                r.read_events()
            diverging, hang_evidence = analyze_hang(ranks, stacks)
            evidence.extend(hang_evidence)
            # The watchdog's own latency: from the last progress of any rank to stacks in hand.
            hang_timing = {"secondsWithoutProgress": round(quiet, 2),
                           "secondsToVerdict": round(time.monotonic() - last_progress, 2)}
            kill_group(pgid_holder[0])
            for r in ranks:
                r.proc.wait()
            break
        time.sleep(POLL_S)
    kill_group(pgid_holder[0])  # ranks that left children behind (compile workers, dataloaders)
    _current_pgid = None
    for r in ranks:
        text = r.read_log()
        if text:
            emit({"type": "output", "variant": variant, "repeat": repeat, "rank": r.index, "text": text})
        r.read_events()
        evidence.extend(r.evidence)
    outcome, tracebacks, backtrace = classify(ranks, hang, evidence)
    evidence = list(dict.fromkeys(evidence))  # the same line from every rank once
    if not hang:
        stacks = tracebacks
    metrics = dict(hang_timing)
    for r in ranks:
        for name, value in r.metrics.items():
            metrics[name if len(ranks) == 1 else "%s[%d]" % (name, r.index)] = value
    cell = {
        "variant": variant, "repeat": repeat, "outcome": outcome, "seconds": round(time.monotonic() - started, 3),
        "evidence": evidence, "stacks": stacks, "backtrace": backtrace, "metrics": metrics,
        "logs": {str(r.index): r.log_path for r in ranks},
        "memory": {str(r.index): downsample(r.memory) for r in ranks},
    }
    if diverging is not None:
        cell["divergingRank"] = diverging
    write_json_atomic(os.path.join(cell_dir, "result.json"), cell)
    return cell


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    signal.signal(signal.SIGTERM, on_sigterm)
    signal.signal(signal.SIGINT, on_sigterm)
    if plan.get("dieWithParent"):
        die_with_parent()
    os.makedirs(plan["workDir"], exist_ok=True)
    env_info = preflight(plan["python"], plan["workDir"])
    emit({"type": "environment", "environment": env_info})
    notes = []
    if plan.get("needsGpu") and not env_info.get("devices"):
        reason = env_info.get("torchError") or "torch %s sees no CUDA or ROCm device" % env_info.get("torchVersion", "?")
        for variant in plan["variants"]:
            for repeat in range(1, plan["repeats"] + 1):
                cell = {"variant": variant, "repeat": repeat, "outcome": "error", "seconds": 0.0,
                        "evidence": ["skipped: the %s probe needs a GPU; on %s %s" % (plan["probe"], env_info["hostname"], reason)],
                        "stacks": {}, "backtrace": None, "metrics": {"skipped": True}, "logs": {}, "memory": {}}
                emit({"type": "cell", "cell": cell})
        emit({"type": "done", "message": "needs a GPU: %s" % reason})
        return
    gpus = len(env_info.get("devices", []))
    if plan.get("needsGpu") and plan["ranks"] > gpus:
        reason = "%d ranks need %d GPUs (one per rank for NCCL/RCCL), %s has %d" % (plan["ranks"], plan["ranks"], env_info["hostname"], gpus)
        for variant in plan["variants"]:
            for repeat in range(1, plan["repeats"] + 1):
                cell = {"variant": variant, "repeat": repeat, "outcome": "error", "seconds": 0.0,
                        "evidence": ["skipped: " + reason], "stacks": {}, "backtrace": None, "metrics": {"skipped": True},
                        "logs": {}, "memory": {}}
                emit({"type": "cell", "cell": cell})
        emit({"type": "done", "message": reason})
        return
    if "torchError" in env_info:
        notes.append("preflight: %s" % env_info["torchError"])
    if env_info.get("platform") != "cpu" and plan["ranks"] > len(env_info.get("devices", [])) and not plan.get("needsGpu"):
        plan["cpuCollectives"] = True
        notes.append("%d ranks on %d GPU(s): tensors and collectives on CPU with gloo" % (plan["ranks"], len(env_info["devices"])))
    shim, shim_note = build_shim(plan, env_info, plan["workDir"])
    notes.append(shim_note)
    for variant in plan["variants"]:
        for repeat in range(1, plan["repeats"] + 1):
            emit({"type": "cell-started", "variant": variant, "repeat": repeat})
            cell = run_cell(plan, env_info, shim, notes, variant, repeat)
            emit({"type": "cell", "cell": cell})
    emit({"type": "done"})


if __name__ == "__main__":
    main()
