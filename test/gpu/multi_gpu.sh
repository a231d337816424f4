#!/usr/bin/env bash
# Issue 7: the seed reproducers on two GPUs through Headroom's own CLI (`headroom repro run ...
# --target local --ranks 2`). Needs dist/ built (`npm run build:ts`) and Node: when the GPU host has
# none, a Node 20 binary carried as .devtools/node.xz is unpacked. Results under $OUT.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT="${OUT:-/tmp/headroom-gpu2}"
mkdir -p "$OUT/store"
if ! command -v node >/dev/null; then
  mkdir -p "$OUT/bin" && xz -dc .devtools/node.xz > "$OUT/bin/node" && chmod +x "$OUT/bin/node"
  export PATH="$OUT/bin:$PATH"
fi
summary="$OUT/summary.txt"
{ date -u; nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader; nvidia-smi topo -m | head -4
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'
  node --version; } > "$summary" 2>&1

repro() {
  local name="$1"; shift
  local t0=$SECONDS
  # Headroom's options go before the probe's own arguments (which follow `--`).
  timeout 400 node dist/cli.js repro run --target local --ranks 2 --json --store "$OUT/store" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
  echo "== $name: rc=$? wall=$((SECONDS - t0))s: headroom repro run --target local --ranks 2 $*" >> "$summary"
  python3 - "$OUT/$name.json" >> "$summary" <<'PY'
import json, sys
try:
    run = json.load(open(sys.argv[1]))
except Exception as exc:  # noqa: BLE001
    print("  unreadable:", exc); sys.exit()
print("  status=%s %s" % (run["status"], run.get("message", "")))
for c in run["cells"]:
    print("  %s #%d: %s in %.1fs diverging=%s metrics=%s" % (c["variant"], c["repeat"], c["outcome"], c["seconds"], c.get("divergingRank"), json.dumps(c.get("metrics", {}))))
    for e in c["evidence"][:12]:
        print("     - " + e[:400])
    for r, s in sorted(c.get("stacks", {}).items()):
        print("     stack rank %s: %s" % (r, " | ".join(s.strip().splitlines()[-6:])[:700]))
    for r, path in sorted(c.get("logs", {}).items()):
        try:
            tail = open(path, errors="replace").read().strip().splitlines()[-8:]
        except OSError:
            continue
        print("     log rank %s: %s" % (r, " | ".join(tail)[:900]))
    if c.get("backtrace"):
        print("     backtrace: " + c["backtrace"][:900].replace("\n", "\n       "))
PY
}

# ONLY="chc rda ..." limits the batch to those names.
want() { [[ -z "${ONLY:-}" || " ${ONLY} " == *" $1 "* ]]; }
want chc && repro chc cache-held-collective --variant keep-cache --variant empty-cache
want rda && repro rda rank-divergent-allocation
want fault && repro fault script --variant as-is --env HEADROOM_FAULT_RANKS=1 --env HEADROOM_FAULT_BUDGET_BYTES=1073741824 -- test/gpu/one_rank_fault.py
want watchdog && TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_NCCL_DESYNC_DEBUG=1 \
  repro watchdog script --variant as-is --hang-window 150 -- test/gpu/desync_watchdog.py
# The watchdog's own messages, as printed by the ranks.
grep -h -E "Watchdog|desync|didn't join|Timeout|SIGABRT|abort" "$OUT"/store/*/work/cells/*/*.log 2>/dev/null | head -30 >> "$summary"
cat "$summary"
