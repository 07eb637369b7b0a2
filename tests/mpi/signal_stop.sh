#!/usr/bin/env bash
# SIGUSR1 (what Slurm sends before the time limit) to every rank stops them
# together with exit code 3, discarding the generation in flight; a resume
# then finishes the run with the same bytes as an uninterrupted one.
source "$(dirname "$0")/lib.sh"
args=(--set run.games_per_generation="$(size 400 200)" --set run.generations=2 --set run.progress_seconds=0 --set match.pairs=0
      --set spv.heldout_games="$(size 40 20)" --set spv.match_pairs="$(size 16 4)")
mpirun_np 2 "$bin" train --run "$work/straight" "${tiny_run[@]}" "${args[@]}" > "$work/straight.log" 2>&1 \
  || { cat "$work/straight.log"; fail "uninterrupted run"; }
"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$bin" train --run "$work/sig" "${tiny_run[@]}" "${args[@]}" \
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
mpirun_np 2 "$bin" train --run "$work/sig" "${tiny_run[@]}" "${args[@]}" > "$work/resume.log" 2>&1 \
  || { cat "$work/resume.log"; fail "resume"; }
same_files "$work/straight" "$work/sig" 0001 0002

# A stop after the games, during the stages that follow them (here a long evaluation match),
# is seen at the next stage's check: exit 3, the generation discarded, and a resume completes it.
eval_args=(--set run.games_per_generation=8 --set run.generations=1 --set run.progress_seconds=0
           --set leaves.min_rack_count=0 --set spv.heldout_games=0 --set spv.match_pairs=0
           --set match.pairs="$(size 3000 1500)")
"$mpiexec" --allow-run-as-root --oversubscribe -np 2 "$bin" train --run "$work/late" "${tiny_run[@]}" "${eval_args[@]}" \
  > "$work/late.log" 2>&1 &
pid=$!
for _ in $(seq 1 4800); do  # the shards are written once the games are played
  [ -f "$work/late/gen-0001.tmp/shard-00000.h5" ] && break
  sleep 0.05
done
[ -f "$work/late/gen-0001.tmp/shard-00000.h5" ] || { cat "$work/late.log"; fail "the late run never finished its games"; }
pkill -USR1 -f "train --run $work/late" || fail "no rank to signal after the games"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 3 ] || { cat "$work/late.log"; fail "a run stopped after its games exited $rc, expected 3"; }
grep -Eq "stop requested: generation 1 discarded before (its held-out games|its evaluation matches|the network's training)" \
  "$work/late.log" || { cat "$work/late.log"; fail "the stop was not taken between the stages after the games"; }
[ "$(cat "$work/late/LATEST")" = "gen-0000" ] && [ ! -d "$work/late/gen-0001" ] \
  || fail "a generation stopped after its games was written"
mpirun_np 2 "$bin" train --run "$work/late" "${tiny_run[@]}" "${eval_args[@]}" --set match.pairs=4 > "$work/late2.log" 2>&1 \
  || { cat "$work/late2.log"; fail "resume after a stop between stages"; }
[ "$(cat "$work/late/LATEST")" = "gen-0001" ] || fail "the resumed run did not complete generation 1"
# SIGTERM to jobs/local.sh (what a shell, a scheduler or Ctrl-C sends): the script passes it to
# mpirun as SIGUSR1, which Open MPI forwards to the ranks, and the run ends with exit 3 (SIGTERM to
# mpirun itself would stop the ranks as cleanly, but mpirun then exits 1)
src="$(cd "$(dirname "$0")/../.." && pwd)"
ROOKERY_BIN="$bin" ROOKERY_NP=2 bash "$src/jobs/local.sh" "" "$work/loc" "${tiny_run[@]}" \
  --set lexicon.kwg="$kwg" --set run.games_per_generation=100000 --set run.generations=1 --set run.progress_seconds=0 \
  --set match.pairs=0 --set spv.match_pairs=0 > "$work/loc.log" 2>&1 &
lpid=$!
for _ in $(seq 1 4800); do
  [ -f "$work/loc/LATEST" ] && break
  sleep 0.05
done
sleep 1
kill -TERM "$lpid" || fail "jobs/local.sh is gone before its signal"
rc=0
wait "$lpid" || rc=$?
[ "$rc" -eq 3 ] || { cat "$work/loc.log"; fail "SIGTERM to jobs/local.sh: exit $rc, expected 3"; }
grep -q "stop requested" "$work/loc.log" || { cat "$work/loc.log"; fail "jobs/local.sh: no stop message"; }
echo "signal_stop: all ranks stopped with exit 3; resume identical; a stop between stages is taken; jobs/local.sh maps SIGTERM to exit 3"
