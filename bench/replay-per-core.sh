#!/usr/bin/env bash
# Builds bench/replay-per-core.cc against the addon's sources (with the -O3 the addon gets) and runs it.
#   bench/replay-per-core.sh SNAPSHOT [SETTINGS[@CAPACITY_BYTES]]...
# With HEADROOM_PER_CORE_OUT=<path> it only builds, statically linked, for a host without a compiler
# (the lent GPU host: carry the binary there in .devtools).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/../native/src"
files=("$here/replay-per-core.cc")
for f in byte_source buffers pickle_reader snapshot allocator_settings simulator free_list replay reconstruct; do
  files+=("$src/$f.cc")
done
if [ -n "${HEADROOM_PER_CORE_OUT:-}" ]; then
  g++ -O3 -std=c++17 -static -I"$src" -o "$HEADROOM_PER_CORE_OUT" "${files[@]}" -lz -pthread
  exit 0
fi
binary="$(mktemp -d)/replay-per-core"
trap 'rm -rf "$(dirname "$binary")"' EXIT
g++ -O3 -std=c++17 -I"$src" -o "$binary" "${files[@]}" -lz -pthread
"$binary" "$@"
