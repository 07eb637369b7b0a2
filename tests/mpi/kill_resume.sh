#!/usr/bin/env bash
# kill -9 of mpirun during generation 2, then a resume, gives the same bytes as
# an uninterrupted run (SPV in play, exposure target); a corrupted snapshot
# refuses to resume.
source "$(dirname "$0")/lib.sh"
args=(--set run.games_per_generation="$(size 240 120)" --set run.generations=3 --set run.progress_seconds=0 --set match.pairs=0
      --set spv.use=yes --set spv.target=exposure --set spv.heldout_games="$(size 40 20)" --set spv.match_pairs="$(size 16 4)")
mpirun_np 2 "$bin" train --run "$work/straight" "${tiny_run[@]}" "${args[@]}" > "$work/straight.log" 2>&1 \
  || { cat "$work/straight.log"; fail "uninterrupted run"; }

setsid "$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$bin" train --run "$work/killed" "${tiny_run[@]}" "${args[@]}" \
  > "$work/killed.log" 2>&1 &
pid=$!
for _ in $(seq 1 4800); do  # up to 4 minutes (sanitizer builds on loaded machines)
  [ "$(cat "$work/killed/LATEST" 2>/dev/null)" = "gen-0001" ] && break
  sleep 0.05
done
[ "$(cat "$work/killed/LATEST" 2>/dev/null)" = "gen-0001" ] || fail "generation 1 never completed"
kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid"
wait "$pid" 2>/dev/null || true
pkill -9 -f "train --run $work/killed" 2>/dev/null || true
sleep 0.5
[ "$(cat "$work/killed/LATEST")" != "gen-0003" ] || fail "the kill came too late (run finished)"
[ ! -d "$work/killed/gen-0003" ] || fail "gen-0003 exists after the kill"

mpirun_np 2 "$bin" train --run "$work/killed" "${tiny_run[@]}" "${args[@]}" > "$work/resume.log" 2>&1 \
  || { cat "$work/resume.log"; fail "resume"; }
grep "resuming" >/dev/null "$work/resume.log" || fail "the second run did not resume"
same_files "$work/straight" "$work/killed" 0001 0002 0003
ls -d "$work/killed"/gen-*.tmp 2>/dev/null && fail "a .tmp generation was left behind"
cmp -s "$work/straight/metrics.csv" "$work/killed/metrics.csv" && true  # timings differ; rows are checked below
[ "$(wc -l < "$work/killed/metrics.csv")" -eq 4 ] || fail "metrics.csv after resume"

# corruption of the last generation is detected, and nothing runs
printf 'x' | dd of="$work/killed/gen-0003/leaves.klv2" bs=1 seek=100 conv=notrunc 2>/dev/null
rc=0
mpirun_np 1 "$bin" train --run "$work/killed" "${tiny_run[@]}" --set run.generations=4 > "$work/corrupt.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$work/corrupt.log"; fail "resume from a corrupt snapshot exited $rc, expected 2"; }
grep "sha256" >/dev/null "$work/corrupt.log" || fail "the corrupt-snapshot error does not mention sha256"
[ ! -d "$work/killed/gen-0004" ] || fail "trained on from a corrupt snapshot"
echo "kill_resume: resumed run identical to the uninterrupted one"
