#!/usr/bin/env bash
# Plan vs GPU truth on scripts nobody wrote for Headroom, run unmodified, each in its own process, printing
# torch.cuda.max_memory_allocated:
#  - nanoGPT's train.py (karpathy/nanoGPT at 3adf61e, default config: GPT-2 124M, batch 12 x 1024 tokens, bf16
#    autocast, fused AdamW) on random tokens for 3 iterations, with and without torch.compile, under torchrun
#    with one rank (its DDP path, the one the plan assumes) and as a plain process;
#  - pytorch/examples' imagenet/main.py (at 77f55b9, ResNet-18, batch 256, fp32, SGD with momentum) on its own
#    `--dummy` data for 60 s on GPU 0.
# Their files are third-party code, so they are not in the repository: copy them into the ignored .devtools/
# and carry those folders to the GPU host:
#   git --git-dir=<nanoGPT mirror> show 3adf61e:train.py > .devtools/nanogpt/train.py  (and model.py, configurator.py)
#   git --git-dir=<examples mirror> show 77f55b9:imagenet/main.py > .devtools/imagenet/main.py
# Usage (GPU host, repository root): bash bench/analysis-truth/public-scripts.sh OUT_DIR
set -euo pipefail
out=$(realpath "${1:?OUT_DIR}")
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
work=$(mktemp -d)
cp .devtools/nanogpt/{model.py,train.py,configurator.py} .devtools/imagenet/main.py "$work"/
cd "$work"
# Runs SCRIPT as __main__ and prints the peak when the process ends, or after PEAK_AFTER_S seconds.
cat > peak.py <<'PY'
import atexit, json, os, runpy, signal, sys, torch
def report(*_):
    print("PEAK " + json.dumps({
        "max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved(),
        "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}), flush=True)
    if _: os._exit(0)
atexit.register(report)
if os.environ.get("PEAK_AFTER_S"):
    signal.signal(signal.SIGALRM, report)
    signal.alarm(int(os.environ["PEAK_AFTER_S"]))
script, sys.argv = sys.argv[1], sys.argv[1:]
runpy.run_path(script, run_name="__main__")
PY
mkdir -p data/openwebtext
python3 -c "
import numpy as np
rng = np.random.default_rng(0)
for split, n in (('train', 4_000_000), ('val', 400_000)):
    rng.integers(0, 50257, n, dtype=np.uint16).tofile(f'data/openwebtext/{split}.bin')
"
show() { grep -E '^PEAK|^iter|Epoch: \[0\]\[ *(0|50)/|Error' | tail -4 | tee -a "$out/public-scripts.txt"; }
nanogpt=(train.py --max_iters=3 --eval_iters=2 --log_interval=1 --always_save_checkpoint=False)
for compile in False True; do
  echo "== nanoGPT, torchrun 1 rank, compile=$compile" | tee -a "$out/public-scripts.txt"
  timeout 300 torchrun --standalone --nproc_per_node=1 peak.py "${nanogpt[@]}" --compile=$compile 2>&1 | show
done
echo "== nanoGPT, plain process, compile=False" | tee -a "$out/public-scripts.txt"
timeout 200 python3 peak.py "${nanogpt[@]}" --compile=False 2>&1 | show
echo "== imagenet/main.py --dummy --gpu 0 -b 256, 60 s" | tee -a "$out/public-scripts.txt"
PEAK_AFTER_S=60 timeout 120 python3 peak.py main.py --dummy --gpu 0 -b 256 -j 8 --print-freq 50 2>&1 | show
