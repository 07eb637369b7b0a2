#!/usr/bin/env bash
# SIGUSR1 (what Slurm sends before the time limit) to every rank stops them
# together with exit code 3, discarding the generation in flight; a resume
# then finishes the run with the same bytes as an uninterrupted one.
source "$(dirname "$0")/lib.sh"
args=(--set run.games_per_generation="$(size 400 200)" --set run.generations=2 --set run.progress_seconds=0 --set match.pairs=0
      --set spv.heldout_games="$(size 40 20)" --set spv.match_pairs="$(size 16 4)")
mpirun_np 2 "$bin" train --run "$work/straight" "${tiny_nn[@]}" "${args[@]}" > "$work/straight.log" 2>&1 \
  || { cat "$work/straight.log"; fail "uninterrupted run"; }
"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$bin" train --run "$work/sig" "${tiny_nn[@]}" "${args[@]}" \
  > "$work/sig.log" 2>&1 &
pid=$!
for _ in $(seq 1 4800); do  # up to 4 minutes (sanitizer builds on loaded machines)
  [ "$(cat "$work/sig/LATEST" 2>/dev/null)" = "gen-0001" ] && break
  sleep 0.05
done
pkill -USR1 -f "train --run $work/sig" || fail "no rank to signal"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 3 ] || { cat "$work/sig.log"; fail "stopped run exited $rc, expected 3"; }
grep "stop requested" >/dev/null "$work/sig.log" || fail "no stop message"
[ "$(cat "$work/sig/LATEST")" = "gen-0001" ] || fail "LATEST moved past the interrupted generation"
[ ! -d "$work/sig/gen-0002" ] || fail "a half generation was written"
mpirun_np 2 "$bin" train --run "$work/sig" "${tiny_nn[@]}" "${args[@]}" > "$work/resume.log" 2>&1 \
  || { cat "$work/resume.log"; fail "resume"; }
same_files "$work/straight" "$work/sig" 0001 0002
echo "signal_stop: all ranks stopped with exit 3; resume identical"
