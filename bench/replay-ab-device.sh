#!/usr/bin/env bash
# A/B of two builds of the addon on the lent GPU host (which has no Node: carry an xz of the node binary as
# .devtools/node.xz, and the two builds as .devtools/headroom-prev.node and .devtools/headroom.node): the 1 GB
# budget (bench/replay-runs.mjs, 3 runs a build) alternating the builds, two rounds, on 2 cores and on all of
# them; then decode against pickle.load on one core with the new build. Run through the device tool from the
# repository root with carry [".devtools"].
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lent-host-env.sh"
date -u; lscpu | grep -E "Model name|^CPU\(s\)"; node --version
snapshot=/tmp/headroom-synthetic-1g.pickle
node --input-type=module -e "import { generate } from './bench/replay-synthetic.mjs'; await generate('$snapshot', 1e9);"
all="0-$(($(nproc) - 1))"
for round in 1 2; do
  for cores in 0-1 "$all"; do
    for build in prev new; do
      addon=.devtools/headroom.node
      [ "$build" = prev ] && addon=.devtools/headroom-prev.node
      echo "== round $round, $build build, cores $cores"
      HEADROOM_NATIVE="$PWD/$addon" taskset -c "$cores" node bench/replay-runs.mjs "$snapshot" --runs 3
    done
  done
done
echo "== bench/decode.mjs, one core, new build"
HEADROOM_NATIVE="$PWD/.devtools/headroom.node" taskset -c 0 node bench/decode.mjs --synthetic-bytes 100000000 --repeat 3
date -u
