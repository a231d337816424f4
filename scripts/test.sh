#!/usr/bin/env bash
# The whole test gate: set up, type-check, then unit + native + integration tests, then the
# end-to-end tests in a real VS Code workbench (code-server) driven in Debian's chromium.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The integration and e2e tests start a real sshd, munged, slurmctld and slurmd for this checkout
# (scripts/start-test-hosts.sh, shared by the test files); stop them when the gate ends, passed or not,
# so no daemon outlives the run.
trap 'bash scripts/stop-test-hosts.sh' EXIT

bash scripts/setup.sh
bash scripts/setup-e2e.sh

echo '== type-check (tsc -b, strict)'
# If this fails: the error names the file; protocol changes must be made in server/src/protocol.ts.
npx tsc -b

echo '== unit, native and integration tests'
npx vitest run --project unit

echo '== snapshot decoder fuzz smoke (libFuzzer, ASan, UBSan)'
# If this fails: the crashing input is in native/fuzz/build/artifacts/; replay it with
# native/fuzz/build/decode_fuzzer <file> to get the sanitizer report.
bash native/fuzz/run.sh --runs 20000 --seconds 60

echo '== end-to-end tests (code-server + chromium)'
# If this fails: screenshots and logs are in test-results/.
npx vitest run --project e2e
