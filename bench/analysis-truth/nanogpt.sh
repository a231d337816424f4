#!/usr/bin/env bash
# Plan vs GPU truth on a script nobody wrote for Headroom: nanoGPT's own train.py (karpathy/nanoGPT at
# 3adf61e, default config: GPT-2 124M, batch 12 x 1024 tokens, bf16 autocast, fused AdamW), run on random
# tokens for a few iterations with and without torch.compile, under torchrun with one rank (its DDP
# path, the one the plan assumes) and as a plain process. Prints each run's torch.cuda.max_memory_allocated.
#
# nanoGPT's files are third-party code, so they are not in the repository: copy model.py, train.py and
# configurator.py into .devtools/nanogpt/ (ignored) and carry that folder to the GPU host:
#   git --git-dir=<mirror> show 3adf61e:train.py > .devtools/nanogpt/train.py   (and the other two)
# Usage (GPU host, repository root): bash bench/analysis-truth/nanogpt.sh OUT_DIR
set -euo pipefail
out=${1:?OUT_DIR}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
work=$(mktemp -d)
cp .devtools/nanogpt/{model.py,train.py,configurator.py} "$work"/
cd "$work"
mkdir -p data/openwebtext
python3 -c "
import numpy as np
rng = np.random.default_rng(0)
for split, n in (('train', 4_000_000), ('val', 400_000)):
    rng.integers(0, 50257, n, dtype=np.uint16).tofile(f'data/openwebtext/{split}.bin')
"
# Runs train.py as __main__ and prints the peak when the process ends (after destroy_process_group).
cat > peak.py <<'PY'
import atexit, json, runpy, sys, torch
atexit.register(lambda: print("PEAK " + json.dumps({
    "max_allocated": torch.cuda.max_memory_allocated(), "max_reserved": torch.cuda.max_memory_reserved(),
    "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}), flush=True))
sys.argv = ["train.py"] + sys.argv[1:]
runpy.run_path("train.py", run_name="__main__")
PY
common=(--max_iters=3 --eval_iters=2 --log_interval=1 --always_save_checkpoint=False)
for compile in False True; do
  echo "== torchrun 1 rank, compile=$compile"
  timeout 400 torchrun --standalone --nproc_per_node=1 peak.py "${common[@]}" --compile=$compile 2>&1 | grep -E '^PEAK|^iter|Error|error' | tail -6 | tee -a "$out/nanogpt.txt"
done
echo "== plain process, compile=False"
timeout 200 python3 peak.py "${common[@]}" --compile=False 2>&1 | grep -E '^PEAK|^iter|Error|error' | tail -6 | tee -a "$out/nanogpt.txt"
