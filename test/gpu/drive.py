"""Runs one probe the way the local target does, for GPU machines without Node: writes the plan,
runs the supervisor, and prints the run record as `headroom repro run --json` would.

    python3 test/gpu/drive.py STORE PROBE [--variant V]... [--repeat N] [--ranks N] [--env K=V]... [-- ARGS...]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNS = os.path.join(ROOT, "server", "src", "runs")


def header(probe_file):
    text = open(probe_file).read()
    fields = {}
    for key, value in re.findall(r"^(Seed|Needs GPU|Min ranks|Variants):[ \t]*(.*)$", text, re.M):
        fields.setdefault(key, value)  # the first occurrence: the header line, not the prose heading
    return [v.strip() for v in fields["Variants"].split(",")], fields["Needs GPU"].strip() == "yes", int(fields["Min ranks"])


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    parser = argparse.ArgumentParser()
    parser.add_argument("store")
    parser.add_argument("probe")
    parser.add_argument("--variant", action="append")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--ranks", type=int)
    parser.add_argument("--env", action="append", default=[])
    opts = parser.parse_args(argv)
    probe_file = os.path.join(RUNS, "probes", opts.probe.replace("-", "_") + ".py")
    variants, needs_gpu, min_ranks = header(probe_file)
    run_id = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + opts.probe
    run_dir = os.path.join(opts.store, run_id)
    os.makedirs(run_dir)
    plan = {"runId": run_id, "probe": opts.probe, "variants": opts.variant or variants, "repeats": opts.repeat,
            "ranks": opts.ranks or min_ranks, "hangWindowSeconds": 10, "cellTimeoutSeconds": 900, "needsGpu": needs_gpu,
            "python": sys.executable, "args": extra, "env": dict(kv.split("=", 1) for kv in opts.env), "cwd": os.getcwd(),
            "workDir": os.path.join(run_dir, "work"), "probeFile": probe_file,
            "shimSource": os.path.join(ROOT, "native", "preload", "headroom_preload.c"), "dieWithParent": True}
    with open(os.path.join(run_dir, "plan.json"), "w") as f:
        json.dump(plan, f)
    started = time.time()
    proc = subprocess.run([sys.executable, os.path.join(RUNS, "harness", "supervisor.py"), os.path.join(run_dir, "plan.json")],
                          capture_output=True, text=True)
    record = {"runId": run_id, "probe": opts.probe, "target": "local", "status": "finished", "cells": [],
              "wallSeconds": round(time.time() - started, 2)}
    for line in proc.stdout.splitlines():
        ev = json.loads(line)
        if ev["type"] == "cell":
            record["cells"].append(ev["cell"])
        elif ev["type"] == "environment":
            record["environment"] = ev["environment"]
        elif ev["type"] == "done" and ev.get("message"):
            record["message"] = ev["message"]
    if proc.returncode != 0:
        record["status"] = "interrupted"
        record["message"] = proc.stderr[-2000:]
    json.dump(record, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
