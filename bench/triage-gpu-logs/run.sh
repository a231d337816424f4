#!/usr/bin/env bash
# Real multi-GPU failure logs for triage, as a user's console shows them: torchrun over two GPUs, stdout and stderr
# together. Needs two GPUs and PyTorch; writes $OUT/<case>.log. Run on the lent nvidia-h200-x2 host:
#   OUT=$OUT bash bench/triage-gpu-logs/run.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT="${OUT:-/tmp/headroom-triage-gpu-logs}"
mkdir -p "$OUT"
{ date -u; nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv,noheader
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version())'; } > "$OUT/env.txt" 2>&1
launch() {
  local name="$1"; shift
  local t0=$SECONDS
  timeout 300 "$@" > "$OUT/$name.log" 2>&1
  echo "== $name: rc=$? wall=$((SECONDS - t0))s: $*" >> "$OUT/env.txt"
}
# ONLY=<case> runs one case.
want() { [ -z "${ONLY:-}" ] || [ "$ONLY" = "$1" ]; }
# The OOM on rank 1, uncaught; torchrun's own report after it.
want oom-then-timeout && launch oom-then-timeout torchrun --nproc-per-node 2 bench/triage-gpu-logs/oom_then_timeout.py
# The same with the launcher's monitor slowed, so that rank 0's watchdog fires first (its timeout, dump signal, teardown).
want oom-then-watchdog && launch oom-then-watchdog env TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_NCCL_TRACE_BUFFER_SIZE=2000 PG_TIMEOUT_S=15 \
  torchrun --nproc-per-node 2 --monitor-interval 60 bench/triage-gpu-logs/oom_then_timeout.py
# Rank 1 catches the OOM and skips the collective (test/gpu/desync_watchdog.py): both ranks time out, with the desync report.
want caught-oom-desync && launch caught-oom-desync env TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DESYNC_DEBUG=1 \
  torchrun --nproc-per-node 2 test/gpu/desync_watchdog.py
# NCCL's buffers at the first collective, with 16 MiB (then 256 MiB) left free on each GPU: a collective OOM.
want collective-oom && launch collective-oom env NCCL_DEBUG=WARN LEAVE_MIB=16 torchrun --nproc-per-node 2 bench/triage-gpu-logs/collective_oom.py
want collective-oom-256 && launch collective-oom-256 env NCCL_DEBUG=WARN LEAVE_MIB=256 torchrun --nproc-per-node 2 bench/triage-gpu-logs/collective_oom.py
# A look-alike: a device-side assert from a label past the classes.
want device-assert && launch device-assert python3 bench/triage-gpu-logs/device_assert.py
cat "$OUT/env.txt"
