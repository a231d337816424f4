#!/usr/bin/env bash
# Builds the decoder fuzzer with libFuzzer, ASan and UBSan (Debian's clang), seeds it from the
# fixtures, and runs it. Any crash or sanitizer report fails the script.
#   native/fuzz/run.sh [--runs N] [--seconds S] [--max-len BYTES]
#   (default: 200000 runs, at most 120 s, inputs up to 16 KiB)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs=200000
seconds=120
maxlen=16384
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --max-len) maxlen="$2"; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
# Outside native/build, which node-gyp rebuild deletes (".gitignore" ignores every build/ folder).
out="$here/build"
mkdir -p "$out/corpus" "$out/artifacts"
src="$root/native/src"
clang++ -std=c++17 -g -O1 -fno-omit-frame-pointer \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I "$src" \
  "$src/byte_source.cc" "$src/buffers.cc" "$src/pickle_reader.cc" "$src/snapshot.cc" "$src/allocator_settings.cc" \
  "$src/simulator.cc" "$src/free_list.cc" "$src/replay.cc" "$src/reconstruct.cc" "$here/decode_fuzzer.cc" \
  -lz -o "$out/decode_fuzzer"
python3 "$here/seeds.py" "$out/seeds"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
"$out/decode_fuzzer" "$out/corpus" "$out/seeds" \
  -runs="$runs" -max_total_time="$seconds" -max_len="$maxlen" -rss_limit_mb=4096 \
  -artifact_prefix="$out/artifacts/" -print_final_stats=1 2>&1 | tail -25
