#!/usr/bin/env bash
# Stops what scripts/start-test-hosts.sh started from one state directory (same default), by the pid
# files it wrote, and removes the directory. Daemons of other checkouts are left alone.
#
# Usage: bash scripts/stop-test-hosts.sh [STATE_DIR]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

default_state="${TMPDIR:-/tmp}/headroom-hosts-$(pwd -P | sha256sum | cut -c1-10)"
STATE=${1:-${HEADROOM_TEST_HOSTS_DIR:-${default_state}}}
[[ -d "${STATE}" ]] || exit 0

stop() { # PIDFILE NAME
  [[ -f "$1" ]] || return 0
  local pid
  pid=$(cat "$1")
  if kill -0 "${pid}" 2>/dev/null; then
    kill "${pid}"
    for _ in $(seq 50); do kill -0 "${pid}" 2>/dev/null || break; sleep 0.1; done
    kill -0 "${pid}" 2>/dev/null && kill -KILL "${pid}"
    printf 'test-hosts: stopped %s (pid %s)\n' "$2" "${pid}" >&2
  fi
}
stop "${STATE}/slurm/slurmd.pid" slurmd
stop "${STATE}/slurm/slurmctld.pid" slurmctld
stop "${STATE}/munge/munged.pid" munged
stop "${STATE}/ssh/sshd.pid" sshd
rm -rf -- "${STATE}"
