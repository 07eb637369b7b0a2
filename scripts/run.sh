#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: installs what is missing,
# fetches the lexicon, builds, and runs `rookery train` with the embedded
# default config under mpirun on all cores of this machine (run directory
# runs/default; rerunning resumes it). Then short matches show what the run
# learned: the trained leaves against zero leaves, and the network's policy
# against the static player.
#   scripts/run.sh [extra `rookery train` options, e.g. --set run.generations=5]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
dir=$(bash scripts/build.sh release | tail -n 1)
np="${ROOKERY_NP:-$(nproc)}"
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
run=runs/default
mpirun "${root[@]}" --oversubscribe -np "$np" "$dir/rookery" train --run "$run" "$@"
latest=$(cat "$run/LATEST")
echo "== match: leaves of $run/$latest against zero leaves =="
mpirun "${root[@]}" --oversubscribe -np "$np" "$dir/rookery" match \
  --a "static:leaves=$run/$latest/leaves.klv2" --b static:leaves=zero --pairs 200
if [ -f "$run/$latest/model.h5" ]; then
  echo "== match: the network of $run/$latest (its most probable move) against the static player =="
  mpirun "${root[@]}" --oversubscribe -np "$np" "$dir/rookery" match \
    --a "nn:greedy,model=$run/$latest/model.h5" --b static --pairs 100
fi
