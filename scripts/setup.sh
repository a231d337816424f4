#!/usr/bin/env bash
# Sets up a fresh checkout: Debian packages (when run as root and missing), npm packages, the
# native addon, the bundles and the VSIX. Idempotent and quick when already done.
#
# Usage: bash scripts/setup.sh [--build-only]
#   --build-only  only the Debian packages that building needs (the CLI and the example need no more)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

log() { printf 'setup: %s\n' "$*" >&2; }

# Building: g++/make/python3 for node-gyp; zlib1g-dev because the addon gunzips snapshots with zlib.
readonly build_packages=(g++ make python3 zlib1g-dev)
# Testing: python3-torch is real CPU PyTorch with gloo for the reproducer tests; openssh-server and
# slurm-wlm (with munge) are the real remote targets; clang and its libFuzzer/sanitizer runtimes
# (libclang-rt-14-dev, only "recommended" by clang) build the decoder's fuzz smoke test.
readonly test_packages=(clang libclang-rt-14-dev python3-torch openssh-server slurm-wlm munge)

packages=("${build_packages[@]}")
[[ "${1:-}" == '--build-only' ]] || packages+=("${test_packages[@]}")
missing=()
for pkg in "${packages[@]}"; do
  [[ "$(dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null || true)" == 'install ok installed' ]] || missing+=("${pkg}")
done
if ((${#missing[@]} > 0)); then
  [[ "$(id -u)" == '0' ]] || { log "missing Debian packages (run as root to install): ${missing[*]}"; exit 1; }
  log "installing Debian packages: ${missing[*]}"
  # If this fails: check the apt sources and network; `apt-get update` errors name the mirror.
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, exactly as locked. If this fails with ETARGET, package-lock.json names a version
# the registry no longer has: update it with `npm install <pkg>@<version> --save-exact`.
if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  log 'installing npm packages'
  npm ci --no-audit --no-fund >/dev/null
fi

# The native addon (node-gyp against this machine's Node headers; .npmrc sets nodedir).
log 'building the native addon'
npm run --silent build:native >/dev/null

log 'bundling extension, server, CLI and webview'
npm run --silent build:ts

log 'packaging the VSIX'
npm run --silent package >/dev/null
log "done: dist/headroom.vsix"
