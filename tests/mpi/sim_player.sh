#!/usr/bin/env bash
# Self-play with a sim player (run.player): the snapshots are byte-identical at
# np 1 and np 2, and the games differ from the static player's.
source "$(dirname "$0")/lib.sh"
spec='sim:plies=1,candidates=3,iterations=4'
for np in 1 2; do
  mpirun_np "$np" "$bin" train --run "$work/np$np" "${tiny_run[@]}" --set run.games_per_generation="$(size 12 6)" --set run.generations=2 \
    --set run.progress_seconds=0 --set match.pairs=0 --set spv.match_pairs=0 --set spv.heldout_games=0 \
    --set "run.player=$spec" > "$work/np$np.log" 2>&1 || { cat "$work/np$np.log"; fail "sim player at np $np"; }
done
same_files "$work/np1" "$work/np2" 0001 0002
grep "player = $spec" "$work/np1/config.ini" >/dev/null || fail "config.ini does not record run.player"
mpirun_np 1 "$bin" train --run "$work/static" "${tiny_run[@]}" --set run.games_per_generation="$(size 12 6)" --set run.generations=1 \
  --set run.progress_seconds=0 --set match.pairs=0 --set spv.match_pairs=0 --set spv.heldout_games=0 \
  > "$work/static.log" 2>&1 || { cat "$work/static.log"; fail "static run"; }
! cmp -s "$work/np1/gen-0001/racks.req" "$work/static/gen-0001/racks.req" || fail "the sim player played the static games"
# a bad player spec is refused before anything is written
rc=0; mpirun_np 1 "$bin" train --run "$work/bad" "${tiny_run[@]}" --set "run.player=sim:plies=x" > "$work/bad.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$work/bad.log"; fail "bad run.player exited $rc, expected 2"; }
grep "plies" "$work/bad.log" >/dev/null || fail "bad run.player: $(cat "$work/bad.log")"
[ ! -e "$work/bad/gen-0000" ] || fail "a generation was written despite a bad run.player"
echo "sim_player: snapshots identical at np 1 and 2"
