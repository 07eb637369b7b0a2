#!/usr/bin/env bash
# rookery training on one machine, on all its cores:
#   jobs/local.sh [CONFIG] [RUN_DIR] [extra rookery train options...]
# Without CONFIG the embedded default config is used. Resumes RUN_DIR if it
# holds generations. Ctrl-C or SIGTERM stops all ranks at the next safe point (exit 3): the
# script passes them to mpirun as SIGUSR1, which Open MPI forwards to the ranks and then
# reports their exit code (SIGINT or SIGTERM to mpirun itself stop the ranks as cleanly, but
# mpirun then exits 1 whatever they returned).
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-}"
run="${2:-runs/local}"
shift $(( $# > 2 ? 2 : $# ))
bin="${ROOKERY_BIN:-build/rookery}"
[ -x "$bin" ] || { echo "jobs/local.sh: $bin not built (run scripts/build.sh)" >&2; exit 2; }
np="${ROOKERY_NP:-$(nproc)}"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
args=(train --run "$run")
[ -n "$config" ] && args+=(--config "$config")
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
mpirun "${root[@]}" --oversubscribe -np "$np" "$bin" "${args[@]}" "$@" &
child=$!
trap 'kill -USR1 "$child" 2>/dev/null || true' INT TERM
rc=0
wait "$child" || rc=$?
# wait returns early when a trapped signal arrives: wait again for the real exit
while kill -0 "$child" 2>/dev/null; do
  rc=0
  wait "$child" || rc=$?
done
exit "$rc"
