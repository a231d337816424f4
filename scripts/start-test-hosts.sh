#!/usr/bin/env bash
# Starts the real remote targets the integration tests use, on this machine only:
#   - Debian's OpenSSH server on 127.0.0.1:<port>: throwaway host key, key-only login, a client key,
#     a pre-trusted known_hosts file and an ssh_config snippet (Host headroom-test);
#   - a single-node Slurm cluster (Debian slurm-wlm): munged with a throwaway key, slurmctld and slurmd
#     on localhost, one partition `debug` with 4 CPUs.
# Everything lives under one state directory; nothing in /etc is touched. The default is
# /tmp/headroom-hosts-<hash of the checkout path>: short (unix socket paths are limited to 108 bytes)
# and free of spaces (slurm.conf cannot quote paths), whatever the checkout is called. Idempotent and
# safe to run concurrently (a lock): daemons already running from the same state directory are kept.
#
# Prints (and writes to $STATE/env.sh) the environment lines the tests source:
#   HEADROOM_TEST_SSH_CONFIG, HEADROOM_TEST_SSH_HOST, HEADROOM_TEST_SSH_PORT, HEADROOM_TEST_SSHD_PID,
#   SLURM_CONF, HEADROOM_TEST_SLURM_PARTITION, HEADROOM_TEST_PYTHON.
#
# Usage: bash scripts/start-test-hosts.sh [STATE_DIR]
# Needs: root (sshd logs in as root here; munged/slurmd run as root), openssh-server, slurm-wlm, munge
# (scripts/setup.sh installs them). Stop everything with scripts/stop-test-hosts.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly started_ns=$(date +%s%N)
log() { printf 'test-hosts: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

default_state="${TMPDIR:-/tmp}/headroom-hosts-$(pwd -P | sha256sum | cut -c1-10)"
state_arg=${1:-${HEADROOM_TEST_HOSTS_DIR:-${default_state}}}
mkdir -p "${state_arg}"
STATE=$(cd "${state_arg}" && pwd -P)
readonly STATE
[[ "${STATE}" != *[[:space:]]* ]] || die "state directory '${STATE}' contains whitespace (slurm.conf cannot hold it)"
# Concurrent test files call this script at once: the first starts the daemons, the others wait.
exec 9>"${STATE}/.lock"
flock 9
readonly SSH_DIR="${STATE}/ssh" SLURM_DIR="${STATE}/slurm" MUNGE_DIR="${STATE}/munge"
mkdir -p "${SSH_DIR}" "${SLURM_DIR}/state" "${SLURM_DIR}/spool" "${MUNGE_DIR}"
# munged refuses key and socket directories that others can write to.
chmod 0700 "${STATE}" "${SSH_DIR}" "${MUNGE_DIR}"

for tool in /usr/sbin/sshd ssh ssh-keygen /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sinfo srun; do
  command -v "${tool}" >/dev/null || die "${tool} not found (run scripts/setup.sh as root to install openssh-server, slurm-wlm and munge)"
done
[[ "$(id -u)" == '0' ]] || die 'run as root: the loopback sshd logs in as root and slurmd must run as root'

# A free TCP port on 127.0.0.1 (asked of the kernel), unless one was chosen in an earlier start.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }
# Daemons must not inherit the lock (fd 9: they would hold it forever) nor the caller's stdout
# (a test runner reading it would wait for an EOF that never comes); they write their own logs.
daemon() { "$@" </dev/null >/dev/null 2>&1 9>&-; }
remember_port() { # NAME FILE
  [[ -s "$2" ]] || free_port >"$2"
  cat "$2"
}

# --------------------------------------------------------------------------------------------
# OpenSSH server
readonly ssh_port=$(remember_port ssh "${SSH_DIR}/port")
[[ -f "${SSH_DIR}/host_ed25519" ]] || ssh-keygen -q -t ed25519 -N '' -C headroom-test-host -f "${SSH_DIR}/host_ed25519"
[[ -f "${SSH_DIR}/client_ed25519" ]] || ssh-keygen -q -t ed25519 -N '' -C headroom-test-client -f "${SSH_DIR}/client_ed25519"
cp "${SSH_DIR}/client_ed25519.pub" "${SSH_DIR}/authorized_keys"
chmod 0600 "${SSH_DIR}/authorized_keys" "${SSH_DIR}/client_ed25519" "${SSH_DIR}/host_ed25519"

# StrictModes no: the checkout may sit under a directory sshd considers too open. UsePAM no: no
# login session machinery in containers. Only public keys are accepted.
cat >"${SSH_DIR}/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port ${ssh_port}
HostKey "${SSH_DIR}/host_ed25519"
PidFile "${SSH_DIR}/sshd.pid"
AuthorizedKeysFile "${SSH_DIR}/authorized_keys"
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
MaxStartups 100:30:200
MaxSessions 50
AcceptEnv LANG LC_*
SetEnv SLURM_CONF=${SLURM_DIR}/slurm.conf
Subsystem sftp internal-sftp
EOF

# Pre-trust the host key by writing it ourselves (never StrictHostKeyChecking=no).
printf '[127.0.0.1]:%s %s\n' "${ssh_port}" "$(cut -d' ' -f1,2 "${SSH_DIR}/host_ed25519.pub")" >"${SSH_DIR}/known_hosts"

cat >"${SSH_DIR}/ssh_config" <<EOF
# Written by scripts/start-test-hosts.sh; tests pass it with ssh -F.
Host headroom-test
  HostName 127.0.0.1
  Port ${ssh_port}
  User root
  IdentityFile "${SSH_DIR}/client_ed25519"
  IdentitiesOnly yes
  UserKnownHostsFile "${SSH_DIR}/known_hosts"
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
EOF

mkdir -p /run/sshd
if alive "${SSH_DIR}/sshd.pid"; then
  log "sshd already running (pid $(cat "${SSH_DIR}/sshd.pid"), port ${ssh_port})"
else
  # If this fails: `/usr/sbin/sshd -t -f .e2e/hosts/ssh/sshd_config` prints the config error.
  daemon /usr/sbin/sshd -f "${SSH_DIR}/sshd_config" -E "${SSH_DIR}/sshd.log"
  for _ in $(seq 50); do alive "${SSH_DIR}/sshd.pid" && break; sleep 0.1; done
  alive "${SSH_DIR}/sshd.pid" || die "sshd did not start; see ${SSH_DIR}/sshd.log"
  log "sshd started (pid $(cat "${SSH_DIR}/sshd.pid"), port ${ssh_port})"
fi
ssh -F "${SSH_DIR}/ssh_config" headroom-test true || die "ssh to headroom-test failed; see ${SSH_DIR}/sshd.log"

# --------------------------------------------------------------------------------------------
# munge
readonly munge_socket="${MUNGE_DIR}/munge.socket.2"
if [[ ! -f "${MUNGE_DIR}/munge.key" ]]; then
  head -c 1024 /dev/urandom >"${MUNGE_DIR}/munge.key"
fi
chmod 0400 "${MUNGE_DIR}/munge.key"
if alive "${MUNGE_DIR}/munged.pid"; then
  log "munged already running (pid $(cat "${MUNGE_DIR}/munged.pid"))"
else
  # --force: munged otherwise refuses to run as root; the key and socket stay in the state dir.
  daemon /usr/sbin/munged --force --socket="${munge_socket}" --key-file="${MUNGE_DIR}/munge.key" \
    --pid-file="${MUNGE_DIR}/munged.pid" --log-file="${MUNGE_DIR}/munged.log" --seed-file="${MUNGE_DIR}/munged.seed"
  for _ in $(seq 50); do [[ -S "${munge_socket}" ]] && break; sleep 0.1; done
  [[ -S "${munge_socket}" ]] || die "munged did not start; see ${MUNGE_DIR}/munged.log"
  log "munged started (pid $(cat "${MUNGE_DIR}/munged.pid"))"
fi

# --------------------------------------------------------------------------------------------
# Slurm: one node, one partition. slurmd reports this machine's real CPU count; config_overrides
# makes it take the 4 CPUs below instead, so two ranks fit even on a 2-core CI runner.
readonly ctld_port=$(remember_port ctld "${SLURM_DIR}/ctld.port")
readonly slurmd_port=$(remember_port slurmd "${SLURM_DIR}/slurmd.port")
readonly node_name=$(uname -n | cut -d. -f1)
readonly partition=debug
cat >"${SLURM_DIR}/slurm.conf" <<EOF
# Written by scripts/start-test-hosts.sh: a throwaway single-node cluster.
ClusterName=headroom-test
SlurmctldHost=${node_name}(127.0.0.1)
SlurmctldPort=${ctld_port}
SlurmdPort=${slurmd_port}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=${munge_socket}
CredType=cred/munge
StateSaveLocation=${SLURM_DIR}/state
SlurmdSpoolDir=${SLURM_DIR}/spool
SlurmctldPidFile=${SLURM_DIR}/slurmctld.pid
SlurmdPidFile=${SLURM_DIR}/slurmd.pid
SlurmctldLogFile=${SLURM_DIR}/slurmctld.log
SlurmdLogFile=${SLURM_DIR}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
KillWait=2
InactiveLimit=0
MinJobAge=30
NodeName=${node_name} NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=${partition} Nodes=${node_name} Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="${SLURM_DIR}/slurm.conf"

if alive "${SLURM_DIR}/slurmctld.pid"; then
  log "slurmctld already running (pid $(cat "${SLURM_DIR}/slurmctld.pid"))"
else
  # -c: start clean (no jobs or node state left over from an earlier start of this state dir).
  daemon /usr/sbin/slurmctld -c -f "${SLURM_CONF}"
  log 'slurmctld started'
fi
if alive "${SLURM_DIR}/slurmd.pid"; then
  log "slurmd already running (pid $(cat "${SLURM_DIR}/slurmd.pid"))"
else
  daemon /usr/sbin/slurmd -f "${SLURM_CONF}"
  log 'slurmd started'
fi

# Wait until the node is idle (it registers within a second or two), then prove a job runs.
state=''
for _ in $(seq 100); do
  state=$(sinfo -h -n "${node_name}" -o '%T' 2>/dev/null || true)
  [[ "${state}" == idle* || "${state}" == mixed* || "${state}" == allocated* ]] && break
  sleep 0.2
done
[[ "${state}" == idle* || "${state}" == mixed* || "${state}" == allocated* ]] ||
  die "Slurm node ${node_name} is '${state}', not idle; see ${SLURM_DIR}/slurmctld.log and slurmd.log"
# If this fails: slurmd.log usually names the cause (munge socket, spool dir, cgroup plugins).
srun_out=$(timeout 30 srun -p "${partition}" -N1 -n1 hostname) || die "srun hostname failed; see ${SLURM_DIR}/slurmd.log"
log "srun hostname -> ${srun_out}"

# --------------------------------------------------------------------------------------------
# The environment the tests read.
python_with_torch=/usr/bin/python3
cat >"${STATE}/env.sh" <<EOF
export HEADROOM_TEST_HOSTS_DIR='${STATE}'
export HEADROOM_TEST_SSH_CONFIG='${SSH_DIR}/ssh_config'
export HEADROOM_TEST_SSH_HOST=headroom-test
export HEADROOM_TEST_SSH_PORT=${ssh_port}
export HEADROOM_TEST_SSHD_PID=$(cat "${SSH_DIR}/sshd.pid")
export SLURM_CONF='${SLURM_CONF}'
export HEADROOM_TEST_SLURM_PARTITION=${partition}
export HEADROOM_TEST_PYTHON=${python_with_torch}
EOF
cat "${STATE}/env.sh"
log "ready in $(( ($(date +%s%N) - started_ns) / 1000000 )) ms (state: ${STATE})"
