#!/usr/bin/env bash
# A failure on one rank alone stops every rank, instead of leaving the others waiting in a
# collective until the job's time limit: rank 1 is started with a lexicon that does not exist
# (an MPMD launch), rank 0 with the right one; both must exit promptly with an error.
source "$(dirname "$0")/lib.sh"
rc=0
timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe \
  -np 1 env ROOKERY_LEXICON="$kwg" "$bin" train --run "$work/r" "${tiny_nn[@]}" --set run.generations=1 : \
  -np 1 env ROOKERY_LEXICON="$work/missing.kwg" "$bin" train --run "$work/r" "${tiny_nn[@]}" --set run.generations=1 \
  > "$work/log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] || { cat "$work/log"; fail "the ranks hung after one failed to set up"; }
[ "$rc" -ne 0 ] || { cat "$work/log"; fail "a run with a rank that cannot open its lexicon exited 0"; }
grep -q "missing.kwg" "$work/log" || { cat "$work/log"; fail "the failing rank's error does not name its file"; }
grep -q "another rank failed to set up" "$work/log" || { cat "$work/log"; fail "rank 0 does not say another rank failed"; }
[ ! -e "$work/r" ] || fail "a run directory was created although a rank failed to set up"
echo "rank_failure: every rank stopped (exit $rc)"
