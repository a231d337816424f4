#!/usr/bin/env bash
# Every reproducer probe and the preload shim on a real GPU (the device tool's H200), results
# under $OUT (one JSON run record per line of work, plus a summary). Uses the built CLI when Node
# is there, else test/gpu/drive.py (the same supervisor, plan and record).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT="${OUT:-/tmp/headroom-gpu}"
STORE="$OUT/store"
mkdir -p "$STORE"
summary="$OUT/summary.txt"
{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  command -v node || echo "no node: using test/gpu/drive.py"; } > "$summary" 2>&1

# ONLY="race rda" runs just those lines of work.
repro() {
  local name="$1"; shift
  if [[ -n "${ONLY:-}" && " ${ONLY} " != *" ${name} "* ]]; then return; fi
  local t0; t0=$(date +%s.%N)
  if command -v node >/dev/null; then
    timeout 300 node dist/cli.js repro run "$@" --target local --json --python python3 --store "$STORE" > "$OUT/$name.json" 2> "$OUT/$name.err"
  else
    local probe="$1"; shift
    timeout 300 python3 test/gpu/drive.py "$STORE" "$probe" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
  fi
  local rc=$?
  local wall; wall=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
  python3 - "$OUT/$name.json" "$name" "$rc" "$wall" >> "$summary" <<'PY'
import json, sys
path, name, rc, wall = sys.argv[1:]
try:
    run = json.load(open(path))
except Exception as exc:  # noqa: BLE001
    print("%s: rc=%s wall=%ss unreadable (%s)" % (name, rc, wall, exc)); sys.exit()
print("%s: rc=%s wall=%ss status=%s %s" % (name, rc, wall, run["status"], run.get("message", "")))
for c in run["cells"]:
    print("  %s #%d: %s in %.1fs %s" % (c["variant"], c["repeat"], c["outcome"], c["seconds"], json.dumps(c["metrics"])))
    for e in c["evidence"]:
        print("     - " + e[:300])
    if c.get("backtrace"):
        print("     backtrace: " + c["backtrace"][:600].replace("\n", "\n       "))
PY
}

repro chc-2 cache-held-collective --variant keep-cache --variant empty-cache
repro chc-more cache-held-collective --variant expandable-segments --variant skip-abort-env
repro race global-mode-race --repeat 2
repro rda rank-divergent-allocation --ranks 2
repro frag fragmentation
repro capacity capacity-search
repro intermittent intermittent-oom --repeat 3
# The script probe: a real OOM with the OOM observer's snapshot; shim fault injection by budget and by Nth call.
cat > "$OUT/oom_script.py" <<'PY'
import torch
blocks = []
while True:
    blocks.append(torch.empty(8 * 1024 ** 3, dtype=torch.uint8, device="cuda"))
PY
cat > "$OUT/alloc_script.py" <<'PY'
import torch
blocks = [torch.empty(256 * 1024 ** 2, dtype=torch.uint8, device="cuda") for _ in range(16)]
print("allocated", sum(b.numel() for b in blocks))
PY
repro script-oom script --variant as-is -- "$OUT/oom_script.py"
repro script-budget script --variant as-is --env HEADROOM_FAULT_BUDGET_BYTES=1073741824 -- "$OUT/alloc_script.py"
repro script-nth script --variant as-is --env HEADROOM_FAULT_NTH_CALL=3 --env HEADROOM_FAULT_STICKY=1 -- "$OUT/alloc_script.py"
cc -shared -fPIC -o "$OUT/libnative_abort.so" test/fixtures/runs/native_abort.c -lpthread
repro script-abort script --variant as-is -- test/fixtures/runs/abort_on_runtime_thread.py "$OUT/libnative_abort.so"
ls "$STORE"/*/work/cells/*/oom_snapshot_rank0.pickle >> "$summary" 2>&1
cat "$summary"
