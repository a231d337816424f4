"""Runs each configuration of configs.json in its own process on the GPU and records the peak memory.

Usage (device machine): python3 bench/analysis-truth/measure.py OUT_DIR
Writes OUT_DIR/measured.json: {name: {params, max_allocated, max_reserved, device_used, ...} | {error}}.
"""
import json
import os
import subprocess
import sys
import time

import torch
import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "test", "fixtures", "scripts")


def main(out_dir):
    configs = json.load(open(os.path.join(HERE, "configs.json")))
    results = {"_env": {
        "torch": torch.__version__, "cuda": torch.version.cuda, "transformers": transformers.__version__,
        "device": torch.cuda.get_device_name(0), "total_memory": torch.cuda.get_device_properties(0).total_memory,
    }}
    for cfg in configs:
        argv = [sys.executable, os.path.join(SCRIPTS, cfg["script"])]
        for key, value in cfg["args"].items():
            argv += [f"--{key}", str(value)]
        started = time.time()
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=240)
        lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
        if proc.returncode == 0 and lines:
            results[cfg["name"]] = {**json.loads(lines[-1]), "seconds": round(time.time() - started, 1)}
        else:
            results[cfg["name"]] = {"error": proc.stderr[-2000:], "returncode": proc.returncode}
        print(cfg["name"], json.dumps(results[cfg["name"]])[:300], flush=True)
    with open(os.path.join(out_dir, "measured.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
