#!/usr/bin/env bash
# The main job on the bundled example: triage a real-format CUDA OOM log from examples/train.py,
# and summarize a real PyTorch memory snapshot recorded on an H200, both with the CLI.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh --build-only
echo
node bin/headroom.js triage examples/oom.log
echo
node bin/headroom.js snapshot test/fixtures/snapshots/llm__default.pickle.gz
