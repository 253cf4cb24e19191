#!/usr/bin/env bash
# Installs the Debian 12 packages the workbench needs. Idempotent: a no-op when all are present.
# Needs root (apt-get). Non-interactive.
set -euo pipefail
PKGS=(cmake make g++ llvm-22 llvm-22-dev clang-22 libarmadillo-dev libhdf5-dev libcli11-dev
      libgtest-dev python3 python3-h5py python3-numpy)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root to install them)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
