#!/usr/bin/env bash
# A failure on one rank alone stops every rank, instead of leaving the others waiting in a
# collective until the job's time limit: rank 1 is started with a lexicon that does not exist
# (an MPMD launch), rank 0 with the right one; both must exit promptly with an error.
source "$(dirname "$0")/lib.sh"
rc=0
timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe \
  -np 1 env ROOKERY_LEXICON="$kwg" "$bin" train --run "$work/r" "${tiny_run[@]}" --set run.generations=1 : \
  -np 1 env ROOKERY_LEXICON="$work/missing.kwg" "$bin" train --run "$work/r" "${tiny_run[@]}" --set run.generations=1 \
  > "$work/log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] || { cat "$work/log"; fail "the ranks hung after one failed to set up"; }
[ "$rc" -ne 0 ] || { cat "$work/log"; fail "a run with a rank that cannot open its lexicon exited 0"; }
grep -q "missing.kwg" "$work/log" || { cat "$work/log"; fail "the failing rank's error does not name its file"; }
grep -q "another rank failed to set up" "$work/log" || { cat "$work/log"; fail "rank 0 does not say another rank failed"; }
[ ! -e "$work/r" ] || fail "a run directory was created although a rank failed to set up"

# The network's stage: rank 1 reads a copy of the run whose shard is truncated. Both stop, and
# the failing rank prints its own error (naming the shard), rank 0 that another rank failed.
mpirun_np 1 "$bin" train --run "$work/good" "${tiny_run[@]}" --set run.games_per_generation=20 --set run.generations=1 \
  --set match.pairs=0 --set spv.heldout_games=0 --set spv.match_pairs=0 > "$work/good.log" 2>&1 \
  || { cat "$work/good.log"; fail "the run to train on"; }
cp -r "$work/good" "$work/bad"
shard="$work/bad/gen-0001/shard-00000.h5"
head -c 4000 "$shard" > "$shard.cut" && mv "$shard.cut" "$shard"
rc=0
timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe \
  -np 1 "$bin" nn train --run "$work/good" --set nn.steps=2 --out "$work/a.h5" : \
  -np 1 "$bin" nn train --run "$work/bad" --set nn.steps=2 --out "$work/a.h5" > "$work/nn.log" 2>&1 || rc=$?
[ "$rc" -ne 124 ] || { cat "$work/nn.log"; fail "nn train hung after one rank failed"; }
[ "$rc" -ne 0 ] || { cat "$work/nn.log"; fail "nn train with a rank that cannot read its shards exited 0"; }
grep -q "rank 1: .*shard-00000.h5" "$work/nn.log" || { cat "$work/nn.log"; fail "the failing rank did not print its error"; }
grep -q "rank 0: nn: another rank could not load the shards" "$work/nn.log" \
  || { cat "$work/nn.log"; fail "rank 0 does not say another rank failed"; }
[ ! -e "$work/a.h5" ] || fail "a model was written although a rank failed"
echo "rank_failure: every rank stopped; each failure printed by the rank that saw it"
