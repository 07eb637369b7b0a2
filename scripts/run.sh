#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what is missing,
# fetches the lexicon, builds, and runs a short self-play demo under mpirun
# (until `rookery train` lands, issue 3).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
dir=$(bash scripts/build.sh release | tail -n 1)
"$dir/rookery" selfplay --games 3 --seed 2026 --show
