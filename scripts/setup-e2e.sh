#!/usr/bin/env bash
# Installs what the end-to-end tests need: Debian's chromium (the browser playwright-core drives),
# and code-server 4.100.3 (a real VS Code workbench that runs on Node 20) as a project-local dev
# tool under .e2e/code-server, outside the extension's own dependencies.
#
# Idempotent: each step checks first and does nothing when its result is already there.
# Runs offline-safe: @vscode/ripgrep's postinstall would download `rg`; it is handed Debian's
# ripgrep through the cache directory it checks before downloading.
#
# Usage: bash scripts/setup-e2e.sh        (as root, or as a user who can sudo apt-get)
set -euo pipefail

readonly CODE_SERVER_VERSION='4.100.3'
# The @vscode/ripgrep version that code-server 4.100.3's bundled VS Code depends on, and the
# ripgrep release its postinstall asks for. If code-server is bumped, its install fails with a
# download error naming the new file: update these two names to match.
readonly VSCODE_RIPGREP_VERSION='1.15.11'
readonly RIPGREP_ASSET='ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz'

root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly root_dir
readonly tool_dir="${root_dir}/.e2e/code-server"
readonly code_server_pkg="${tool_dir}/node_modules/code-server"

log() { printf 'setup-e2e: %s\n' "$*" >&2; }
die() { printf 'setup-e2e: error: %s\n' "$*" >&2; exit 1; }

started_s="${SECONDS}"

# --- Node: code-server 4.100.3's postinstall refuses any Node major but 20. ---
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" \
  || die 'node is not on PATH; install Node 20 first'
[[ "${node_major}" == '20' ]] \
  || die "code-server ${CODE_SERVER_VERSION} needs Node 20, found $(node --version)"

# --- Debian packages: chromium (browser), libkrb5-dev (code-server's kerberos module builds
# against gssapi), ripgrep (stands in for the rg that @vscode/ripgrep would download), and the
# compiler toolchain node-gyp needs for kerberos and node-pty. ---
readonly debian_packages=(chromium libkrb5-dev ripgrep g++ make python3)
missing=()
for pkg in "${debian_packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "${pkg}" 2>/dev/null || true)"
  [[ "${status}" == 'install ok installed' ]] || missing+=("${pkg}")
done
if ((${#missing[@]} > 0)); then
  log "installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  if [[ "$(id -u)" != '0' ]]; then
    command -v sudo >/dev/null || die "need root (or sudo) to install: ${missing[*]}"
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  log 'Debian packages already installed'
fi

# --- code-server ---
installed_version="$(node -p "require('${code_server_pkg}/package.json').version" 2>/dev/null || true)"
if [[ "${installed_version}" == "${CODE_SERVER_VERSION}" && -f "${code_server_pkg}/.headroom-install-ok" ]]; then
  log "code-server ${CODE_SERVER_VERSION} already installed in ${tool_dir}"
else
  log "installing code-server ${CODE_SERVER_VERSION} into ${tool_dir}"
  # Everything is built in a private directory and moved into place at the end, for two reasons:
  # node-gyp's Makefiles break on paths with spaces, so argon2's fallback build fails inside a
  # checkout like "~/My Projects/headroom"; and a failed install never leaves a half-built
  # .e2e/code-server behind for the check above to trust. @vscode/ripgrep also looks for its
  # download in os.tmpdir(), so the same directory is the install's TMPDIR.
  install_tmp="$(mktemp -d "${TMPDIR:-/tmp}/headroom-e2e-setup.XXXXXX")"
  trap 'rm -rf -- "${install_tmp}"' EXIT
  [[ "${install_tmp}" != *[[:space:]]* ]] \
    || die "TMPDIR must not contain spaces (node-gyp cannot build there): ${install_tmp}"
  rg_cache="${install_tmp}/vscode-ripgrep-cache-${VSCODE_RIPGREP_VERSION}"
  mkdir -p "${rg_cache}/stage"
  cp "$(command -v rg)" "${rg_cache}/stage/rg"
  tar -czf "${rg_cache}/${RIPGREP_ASSET}" -C "${rg_cache}/stage" rg
  # The tool dir gets its own package.json so npm treats it as a separate project: code-server
  # and its 300 MB of dependencies never enter the extension's package-lock.json.
  staging="${install_tmp}/code-server"
  mkdir -p "${staging}"
  printf '{ "name": "headroom-e2e-tools", "private": true }\n' > "${staging}/package.json"
  # --unsafe-perm: code-server's postinstall.sh refuses to run as root unless
  # npm_config_unsafe_perm is true (npm 7+ warns that it does not know the flag; it still sets it).
  # npm_config_yes: node-pty's postinstall runs `npx node-gyp`, which must not prompt.
  # nodedir: node-gyp builds against the local Node headers instead of downloading them.
  (
    cd "${staging}"
    TMPDIR="${install_tmp}" npm_config_yes=true npm_config_nodedir=/usr \
      npm install --unsafe-perm --no-audit --no-fund --save-exact \
      "code-server@${CODE_SERVER_VERSION}"
  ) || die 'npm install of code-server failed (see the npm output above)'
  staged_pkg="${staging}/node_modules/code-server"
  [[ -f "${staged_pkg}/out/node/entry.js" ]] || die 'code-server installed without out/node/entry.js'
  [[ -x "${staged_pkg}/lib/vscode/node_modules/@vscode/ripgrep/bin/rg" ]] \
    || die 'code-server installed without @vscode/ripgrep/bin/rg (its postinstall did not run)'
  touch "${staged_pkg}/.headroom-install-ok"
  rm -rf -- "${tool_dir}"
  mkdir -p "$(dirname "${tool_dir}")"
  mv -- "${staging}" "${tool_dir}"
fi

"${tool_dir}/node_modules/.bin/code-server" --version >/dev/null \
  || die "${tool_dir}/node_modules/.bin/code-server does not run"
log "ready in $((SECONDS - started_s)) s: $("${tool_dir}/node_modules/.bin/code-server" --version | head -1)"
