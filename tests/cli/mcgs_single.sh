#!/usr/bin/env bash
# The search's generation loop on one process (rookery train without mpirun; its runs at np 2
# and 3 are tests/mpi/mcgs_loop.sh): rollouts that stay when V loses its value check, a
# generation that promotes no model plays no value check, run.keep with a model in force, the
# anchor played on its own deals, the report's leaf valuer, and the loop's start-up refusals.
# Apart from the MPI tests so that it runs beside other tests instead of alone.
#   mcgs_single.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
[ -n "$kwg" ] && [ -f "$kwg" ] || missing "SOWPODS.kwg not built; the search's loop checks did not run"
export ROOKERY_LEXICON="$kwg"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
args=("${tiny_run[@]}" --set run.player=mcgs:visits=12,candidates=5 --set run.games_per_generation="$(size 12 6)"
      --set run.progress_seconds=0 --set match.pairs=2 --set spv.heldout_games=0 --set spv.match_pairs=0
      --set mcgs.gate_pairs=2 --set mcgs.anchor_pairs=1 --set mcgs.candidates_with_net=mix
      --set nn.value_search_weight=0.5)
auto=(--set mcgs.rollout_with_net=auto --set mcgs.value_check_pairs=2 --set mcgs.anchor_pairs=2)
# threshold 101: the rollouts stay (auto:1: 1-ply), and the manifest says so
"$bin" train --run "$work/stay" "${args[@]}" "${auto[@]}" --set mcgs.rollout_with_net=auto:1 \
  --set run.generations=1 --set mcgs.gate_threshold=0 --set mcgs.value_check_threshold=101 > "$work/stay.log" 2>&1 \
  || { cat "$work/stay.log"; fail "train with rollout_with_net = auto:1"; }
grep -q "gen 1 value check: .*V leaves vs 1-ply rollouts: .*rollouts stay" "$work/stay.log" || { cat "$work/stay.log"; fail "value check at 101"; }
[ "$(json_get "$work/stay/gen-0001/manifest.json" search.leaf_rollout)" = 1 ] || fail "1-ply rollouts should stay in force"
# a generation that promotes no model plays no value check (its model was checked); with
# run.keep = 1 it removes gen 1's tables but neither the model in force (gen 1's) nor the shards
# of the trainer's window (nn.window = 4), and a third generation resumes with that model
"$bin" train --run "$work/stay" --set run.generations=2 --set mcgs.gate_threshold=101 --set run.keep=1 \
  > "$work/stay2.log" 2>&1 || { cat "$work/stay2.log"; fail "resume of the 1-ply run"; }
# (at start-up, gen 0's leaves and SPV table; after gen 2, gen 1's and its racks)
grep -q "run.keep = 1 after gen 1: removed 2 file(s) of older generations" "$work/stay2.log" \
  && grep -q "run.keep = 1 after gen 2: removed 3 file(s) of older generations" "$work/stay2.log" \
  || { cat "$work/stay2.log"; fail "run.keep = 1 should remove gen 0's leaves and SPV table, then gen 1's and its racks"; }
[ -f "$work/stay/gen-0001/model.h5" ] || fail "run.keep removed the model in force"
[ ! -e "$work/stay/gen-0001/racks.req" ] && [ ! -e "$work/stay/gen-0001/leaves.klv2" ] || fail "run.keep kept gen 1's tables"
ls "$work/stay/gen-0001"/shard-*.h5 > /dev/null || fail "run.keep removed shards of the trainer's window"
[ -f "$work/stay/gen-0002/racks.req" ] && [ -f "$work/stay/gen-0001/manifest.json" ] || fail "run.keep removed too much"
"$bin" train --run "$work/stay" --set run.generations=3 --set mcgs.gate_threshold=101 --set run.keep=1 \
  > "$work/stay3.log" 2>&1 || { cat "$work/stay3.log"; fail "resume of a pruned run"; }
grep -q "guided by gen-0001/model.h5" "$work/stay3.log" || { cat "$work/stay3.log"; fail "the pruned run should keep gen 1's model"; }
grep -q "gen 2 gate: .*not promoted" "$work/stay2.log" || { cat "$work/stay2.log"; fail "stay: gen 2 gate"; }
if grep -q "gen 2 value check" "$work/stay2.log"; then fail "a value check without a new model"; fi
[ "$(json_get "$work/stay/gen-0002/manifest.json" search.value_check.pairs)" = 0 ] || fail "stay: gen 2 manifest: no value check"
[ "$(json_get "$work/stay/gen-0002/manifest.json" search.value_won) $(json_get "$work/stay/gen-0002/manifest.json" search.value_checked_model)" = "false 1" ] || fail "stay: gen 1's model was checked"
grep -q '"self_play": "mcgs:visits=12,candidates=5,net=gen-0001/model.h5,rollout=1,' "$work/stay/gen-0002/manifest.json" \
  || fail "stay: gen 2's self-play should value leaves by 1-ply rollouts"
# the anchor's players are the gate's (the search with the new model, 1-ply rollouts, against the
# search without a net, as many pairs), but the gate chose the model on its deals: the anchor is
# played on its own deals, not carried over from the gate
grep -q "gen 1 anchor: .*(2 pairs)$" "$work/stay.log" || { cat "$work/stay.log"; fail "the anchor should be played"; }
if grep -q "the gate's match" "$work/stay.log"; then fail "the anchor reused the gate's match"; fi
if grep -q '"gate_match"' "$work/stay/gen-0001/manifest.json"; then fail "a gate_match field in the manifest"; fi
# rookery report: the leaves' valuer after each generation
"$bin" report "$work/stay" --png "$work/rs.png" > "$work/rs.txt" 2>&1 || true
awk '$1 == 1 {print $NF}' "$work/rs.txt" | grep -qx R1 || { cat "$work/rs.txt"; fail "report: 1-ply rollouts stay"; }
# the value check needs a net to compare
if "$bin" train --run "$work/bad3" "${args[@]}" --set mcgs.rollout_with_net=auto --set mcgs.net=none \
  > "$work/bad3.log" 2>&1; then fail "rollout_with_net = auto without a net should be refused"; fi
grep -q "mcgs.rollout_with_net = auto needs mcgs.net = auto" "$work/bad3.log" || { cat "$work/bad3.log"; fail "auto without a net"; }
# a run directory so long that the gate's spec (its net's path inside) could not open: refused at the start
long="$work/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})"
if "$bin" train --run "$long" "${args[@]}" > "$work/long.log" 2>&1; then fail "an over-long gate spec should be refused"; fi
grep -q "gate's player spec .* bytes long, .*shorten run.output" "$work/long.log" || { cat "$work/long.log"; fail "long spec error"; }
[ ! -d "$long/gen-0001" ] || fail "the long run should stop before its first generation"
# a bad anchor fails at the start, with one line naming it; an anchor needs the search's loop
if "$bin" train --run "$work/bad" "${args[@]}" --set mcgs.anchor=mcgs:visits=0 > "$work/bad.log" 2>&1; then
  fail "a zero-visit anchor should be refused"
fi
grep -q "mcgs.anchor: .*visits" "$work/bad.log" || { cat "$work/bad.log"; fail "the anchor error should name it"; }
if "$bin" train --run "$work/bad2" "${tiny_run[@]}" --set mcgs.anchor_pairs=3 > "$work/bad2.log" 2>&1; then
  fail "an anchor without the search's loop should be refused"
fi
grep -q "mcgs.anchor_pairs = 3 needs the search's loop" "$work/bad2.log" || { cat "$work/bad2.log"; fail "anchor without the loop"; }
if "$bin" train --run "$work/bad3" "${tiny_run[@]}" --set mcgs.decisions=5 > "$work/bad3.log" 2>&1; then
  fail "a decision study without the search's loop should be refused"
fi
grep -q "mcgs.decisions = 5 needs the search's loop" "$work/bad3.log" || { cat "$work/bad3.log"; fail "decisions without the loop"; }
# a bad anchor fails at the start with a decision study alone too (no anchor match)
if "$bin" train --run "$work/bad4" "${args[@]}" --set mcgs.anchor_pairs=0 --set mcgs.decisions=2 \
   --set mcgs.anchor=mcgs:visits=0 > "$work/bad4.log" 2>&1; then
  fail "a zero-visit anchor should be refused for the decision study"
fi
grep -q "mcgs.anchor: .*visits" "$work/bad4.log" || { cat "$work/bad4.log"; fail "the anchor error (decisions) should name it"; }
[ ! -d "$work/bad4/gen-0001" ] || fail "the bad anchor run should stop before its first generation"
echo "mcgs_single: rollouts that stay, run.keep with a model in force, the anchor on its own deals, start-up refusals"
