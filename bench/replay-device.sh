#!/usr/bin/env bash
# The replay benchmarks on the lent GPU host (which has no Node: the caller carries an xz of the
# node binary as .devtools/node.xz and a build of the addon as .devtools/headroom.node), on two
# cores and on all of them. Run through the device tool from the repository root.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lent-host-env.sh"
export HEADROOM_NATIVE=$PWD/.devtools/headroom.node
date -u; lscpu | grep -E "Model name|^CPU\(s\)"
all="0-$(($(nproc) - 1))"
for cores in 0-1 "$all"; do
  echo "== bench/replay.mjs --bytes 1000000000, cores $cores"
  taskset -c "$cores" node bench/replay.mjs --bytes 1000000000
done
snapshot=/tmp/headroom-synthetic-1g.pickle
node --input-type=module -e "import { generate } from './bench/replay-synthetic.mjs'; await generate('$snapshot', 1e9);"
for cores in 0-1 "$all"; do
  echo "== bench/replay-runs.mjs, cores $cores"
  taskset -c "$cores" node bench/replay-runs.mjs "$snapshot" --runs 5
done
echo "== bench/decode.mjs, one core"
taskset -c 0 node bench/decode.mjs --synthetic-bytes 100000000 --repeat 3
