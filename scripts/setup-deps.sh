#!/usr/bin/env bash
# Installs the Debian packages rookery needs, if any is missing.
# Runs apt-get update first, as root directly or through sudo.
set -euo pipefail

pkgs=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
      libopenblas-dev libcunit1-dev libjansson-dev ca-certificates gnuplot-nox python3-h5py)
missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# npm is only needed to fetch the default lexicon; a Node.js install from
# elsewhere may already provide it (and then conflicts with Debian's npm).
if ! command -v npm >/dev/null 2>&1; then
  missing+=(npm)
fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all packages present"
  exit 0
fi
echo "setup-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
