#!/usr/bin/env bash
# The snapshots of a run (training shards included) are byte-identical for 1, 2 and 3 ranks, forced-rack games included,
# with generation 2 playing with generation 1's SPV table and 2 sampled racks a turn (leaves.sampled_racks);
# np 3 runs 2 self-play threads a rank (run.threads).
source "$(dirname "$0")/lib.sh"
games=$(size 50 30); forced=$(size 48 16)
run_np() { # NP NAME [--set ...]
  local np="$1" name="$2"; shift 2
  mpirun_np "$np" "$bin" train --run "$work/$name" "${tiny_run[@]}" --set run.games_per_generation=$games \
    --set run.generations=2 --set run.progress_seconds=0 \
    --set leaves.min_rack_count=1 --set leaves.max_forced_games=$forced --set leaves.sampled_racks=2 --set match.pairs="$(size 8 2)" --set spv.use=yes \
    --set spv.match_pairs="$(size 16 4)" "$@" \
    > "$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "train $name"; }
  grep "ranks\": $np" "$work/$name/gen-0002/manifest.json" >/dev/null || fail "manifest of $name does not record $np ranks"
}
run_np 1 np1
run_np 2 np2
run_np 3 np3 --set run.threads=2
grep -q "\"games\": $games" "$work/np3/gen-0001/manifest.json" || fail "the threaded run did not play $games games"
for np in 1 2 3; do
  grep "\"forced_games\": $forced" >/dev/null "$work/np$np/gen-0002/manifest.json" || fail "np $np played no forced-rack games"
done
for np in 1 2 3; do
  grep -E '"sampled_observations": [1-9]' >/dev/null "$work/np$np/gen-0002/manifest.json" || fail "np $np valued no sampled racks"
done
m1=$(grep match_vs_zero "$work/np1/gen-0002/manifest.json")
[ -n "$m1" ] || fail "no match result in the manifest"
for np in 2 3; do
  [ "$(grep match_vs_zero "$work/np$np/gen-0002/manifest.json")" = "$m1" ] || fail "match result differs at np $np"
done
[ -f "$work/np1/gen-0002/shard-00000.h5" ] || fail "no training shard in gen-0002"
same_files "$work/np1" "$work/np2" 0001 0002
same_files "$work/np1" "$work/np3" 0001 0002
[ "$(cat "$work/np1/LATEST")" = "gen-0002" ] || fail "LATEST"
[ "$(wc -l < "$work/np3/metrics.csv")" -eq 3 ] || fail "metrics.csv should have a header and 2 rows"
echo "np_identity: snapshots identical at np 1, 2, 3"
