#!/usr/bin/env bash
# rookery train / match without mpirun: usage, config errors, the Slurm/PMI
# guard, and a one-process run; then rookery leaves on that run's racks.req.
#   train.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
export OMPI_MCA_rmaps_base_oversubscribe=1

"$bin" train --help | grep "Exit codes" >/dev/null || fail "train --help"
jobs="$(cd "$(dirname "$0")/../../jobs" && pwd)"
bash -n "$jobs/slurm/train.sbatch" || fail "jobs/slurm/train.sbatch has a syntax error"
bash -n "$jobs/local.sh" || fail "jobs/local.sh has a syntax error"
bash -n "$jobs/slurm/mcgs.sbatch" || fail "jobs/slurm/mcgs.sbatch has a syntax error"
bash -n "$jobs/slurm/afterstate.sbatch" || fail "jobs/slurm/afterstate.sbatch has a syntax error"
grep -- "--signal=B:USR1@900" >/dev/null "$jobs/slurm/mcgs.sbatch" || fail "mcgs.sbatch without the USR1 warning"
grep -- "--signal=B:USR1@300" >/dev/null "$jobs/slurm/train.sbatch" || fail "sbatch without the USR1 warning"
"$bin" match --help | grep "SPEC" >/dev/null || fail "match --help"
"$bin" train --print-default-config > "$work/default.ini"
grep "games_per_generation" >/dev/null "$work/default.ini" || fail "--print-default-config"

printf '[run]\ngenerations = zero\n' > "$work/bad.ini"
expect_exit 2 "bad.ini:2" "$bin" train --config "$work/bad.ini" --run "$work/r0"
expect_exit 2 "unknown key run.nope" "$bin" train --run "$work/r0" "${tiny_run[@]}" --set run.nope=1
expect_exit 2 "run.keep_every = 5 needs run.keep" "$bin" train --run "$work/r0" --set run.keep_every=5
expect_exit 2 "run.keep" "$bin" train --run "$work/r0" --set run.keep=0
expect_exit 2 "missing.ini" "$bin" train --config "$work/missing.ini" --run "$work/r0"
[ ! -e "$work/r0" ] || fail "a run directory was created despite a config error"
expect_exit 2 "SLURM_NTASKS" env SLURM_NTASKS=4 "$bin" train --run "$work/r0" "${tiny_run[@]}"
expect_exit 2 "pairs" "$bin" match --a static --b static

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; no training run"
fi
export ROOKERY_LEXICON="$kwg"
expect_exit 2 "unknown kind" "$bin" match --a mcts --b static --pairs 1
expect_exit 2 "visits '0'" "$bin" match --a mcgs:visits=0 --b static --pairs 1
expect_exit 2 "needs a net" "$bin" match --a mcgs:hidden=net --b static --pairs 1
expect_exit 2 "rollout >= 1" "$bin" match --a mcgs:rollout=0 --b static --pairs 1
expect_exit 2 "run.player" "$bin" train --run "$work/r0" "${tiny_run[@]}" --set run.player=mcgs:net=x.h5
expect_exit 2 "candidates" "$bin" match --a sim:candidates=0 --b static --pairs 1
expect_exit 2 "leaves= or req=" "$bin" match --a sim:leaves=zero,req=x.req --b static --pairs 1
expect_exit 2 "whole number" "$bin" match --a sim:plies=2.5 --b static --pairs 1
expect_exit 2 "finish=maybe, expected yes or no" "$bin" match --a sim:finish=maybe --b static --pairs 1
expect_exit 2 "shrink= goes with req=" "$bin" match --a sim:shrink=3 --b static --pairs 1
expect_exit 2 "nope.klv2" "$bin" match --a static:leaves=/nope.klv2 --b static --pairs 1
# one process, no mpirun (MPI singleton)
"$bin" train --run "$work/r1" "${tiny_run[@]}" --set run.games_per_generation=20 --set run.generations=1 --set match.pairs=2 \
  > "$work/log" 2>&1 \
  || { cat "$work/log"; fail "one-process run"; }
[ "$(cat "$work/r1/LATEST")" = "gen-0001" ] || fail "LATEST after a one-process run"
# the generation's summary lines, read from its record (train/gen_log.c): every figure there
grep -Eq "gen 1 done: 20 games, [0-9]+ turns, [0-9.]+ games/s; mean best equity [0-9.]+; racks observed [0-9]+; leave change rms [0-9.]+; vs zero leaves [0-9.]+% \+/- [0-9.]+; play [0-9.]+ s, reduce [0-9.]+ s, derive [0-9.]+ s, evaluate [0-9.]+ s, write [0-9.]+ s$" "$work/log" \
  || { cat "$work/log"; fail "the gen 1 done line"; }
grep -Eq "gen 1 spv: derived (yes|no); [0-9]+ cells observed, [0-9]+ tile observations, mean \|adj\| [0-9.]+; priors of 1-point tiles: mean [0-9.e+]+, var [0-9.e+]+; openness multipliers [0-9. ]+; held-out residual variance [0-9.]+ -> [0-9.]+ with SPV \([0-9]+ moves\); SPV on vs off [0-9.]+% \+/- [0-9.]+ \([0-9]+ pairs\)$" "$work/log" \
  || { cat "$work/log"; fail "the gen 1 spv line"; }
"$bin" train --config "$jobs/example.ini" --run "$work/r2" "${tiny_run[@]}" --set run.games_per_generation=10 \
  --set run.generations=1 --set match.pairs=0 > "$work/log2" 2>&1 || { cat "$work/log2"; fail "jobs/example.ini does not load"; }
# the example's own player spec, its budgets scaled down (visits 200 -> 4, fast 50 -> 2, 16 candidates -> 3)
small=$(sed -n 's/^player = //p' "$jobs/mcgs.ini" | sed 's/visits=200/visits=4/; s/fast_visits=50/fast_visits=2/; s/candidates=16/candidates=3/')
case "$small" in mcgs:visits=4,candidates=3,*fast_visits=2*) ;; *) fail "jobs/mcgs.ini's player is not the expected one: '$small'" ;; esac
# its anchor (a simulation) scaled down the same way: 20 iterations -> 2, 10 candidates -> 3
small_anchor=$(sed -n 's/^anchor = //p' "$jobs/mcgs.ini" | sed 's/iterations=20/iterations=2/; s/candidates=10/candidates=3/')
case "$small_anchor" in sim:candidates=3,iterations=2*) ;; *) fail "jobs/mcgs.ini's anchor is not the expected one: '$small_anchor'" ;; esac
# jobs/mcgs-reference.ini (its search scaled down: 800 visits -> 4, 16 candidates -> 3) makes the
# reference the loop's nn.reference then reads
small_ref=$(sed -n 's/^player = //p' "$jobs/mcgs-reference.ini" | sed 's/visits=800/visits=4/; s/candidates=16/candidates=3/')
case "$small_ref" in mcgs:visits=4,candidates=3,prior=equity*) ;; *) fail "jobs/mcgs-reference.ini's player is not the expected one: '$small_ref'" ;; esac
"$bin" train --config "$jobs/mcgs-reference.ini" --run "$work/ref" --set run.games_per_generation=10 \
  --set "run.player=$small_ref" > "$work/log-ref" 2>&1 || { cat "$work/log-ref"; fail "jobs/mcgs-reference.ini does not run"; }
ls "$work/ref/gen-0001/"shard-*.h5 > /dev/null && [ ! -f "$work/ref/gen-0001/model.h5" ] || fail "the reference run: shards, no model"
"$bin" train --config "$jobs/mcgs.ini" --run "$work/r3" "${tiny_run[@]}" --set run.games_per_generation=4 --set nn.reference="$work/ref" \
  --set "run.player=$small" --set "mcgs.anchor=$small_anchor" --set run.generations=1 --set match.pairs=0 --set spv.heldout_games=0 \
  --set mcgs.gate_pairs=1 --set mcgs.anchor_pairs=1 --set mcgs.value_check_pairs=1 --set mcgs.decisions=1 > "$work/log3" 2>&1 \
  || { cat "$work/log3"; fail "jobs/mcgs.ini does not load"; }
grep '"model_in_force"' >/dev/null "$work/r3/gen-0001/manifest.json" || fail "jobs/mcgs.ini run without a search manifest"
grep -Eq "gen 1 reference \($work/ref generation 1, [1-9][0-9]* positions, [1-9][0-9]* with a P target\)" "$work/log3" \
  || { cat "$work/log3"; fail "the loop did not score its model on jobs/mcgs-reference.ini's run"; }
grep -q "gen 1 anchor: the search .* vs $small_anchor: " "$work/log3" \
  || { cat "$work/log3"; fail "jobs/mcgs.ini's anchor was not played"; }
grep -q "^decisions = [1-9]" "$jobs/mcgs.ini" || fail "jobs/mcgs.ini should make a decision study each generation"
grep -q "gen 1 decisions: the search .* $small_anchor .* over the anchor (1 positions)" "$work/log3" \
  || { cat "$work/log3"; fail "jobs/mcgs.ini's decision study was not made"; }
grep -q "leaves with a net valued by rollouts until V wins its value check (mcgs.rollout_with_net = auto:2)" "$work/log3" \
  || { cat "$work/log3"; fail "jobs/mcgs.ini should value leaves by rollouts until V wins"; }
# target=q: the completed-Q improved policy gives every candidate a P probability (4 visits
# could reach at most 4 of the 6 candidates; rookery info reports the moves per sample)
"$bin" train --config "$jobs/mcgs.ini" --run "$work/r4" "${tiny_run[@]}" --set run.games_per_generation=4 \
  --set "run.player=mcgs:visits=4,candidates=6,prior=equity,target=q" --set mcgs.anchor=static --set run.generations=1 \
  --set match.pairs=0 --set spv.heldout_games=0 --set mcgs.gate_pairs=1 --set mcgs.anchor_pairs=1 \
  --set mcgs.value_check_pairs=1 --set mcgs.decisions=0 > "$work/log4" 2>&1 || { cat "$work/log4"; fail "a run with target=q"; }
out=$("$bin" info "$work/r4/gen-0001/shard-00000.h5")
per=$(echo "$out" | sed -n 's/.*P target .* moves, \([0-9.]*\) a sample.*/\1/p')
awk -v x="${per:-0}" 'BEGIN { exit !(x > 5.5) }' || fail "target=q: $per moves a sample, want ~6: $out"
"$bin" train --run "$work/r1" "${tiny_run[@]}" --set run.generations=1 | grep "nothing to do" >/dev/null || fail "rerun of a finished run"
# --check: everything set up, nothing written or played
"$bin" train --check --run "$work/chk" "${tiny_run[@]}" --set run.generations=3 > "$work/chk.log" 2>&1 \
  || { cat "$work/chk.log"; fail "train --check of a new run"; }
grep -q "check: OK; would play generations 1..3, 3000 games each, with static on 1 rank(s)" "$work/chk.log" \
  || { cat "$work/chk.log"; fail "train --check does not say what the run would do"; }
[ ! -e "$work/chk" ] || fail "train --check created the run directory"
"$bin" train --check --run "$work/r1" "${tiny_run[@]}" --set run.generations=4 > "$work/chk1.log" 2>&1 \
  || { cat "$work/chk1.log"; fail "train --check of an existing run"; }
grep -q "resuming $work/r1 from gen-0001 (verified)" "$work/chk1.log" && grep -q "would play generations 2..4" "$work/chk1.log" \
  || { cat "$work/chk1.log"; fail "train --check of an existing run: $(cat "$work/chk1.log")"; }
[ "$(cat "$work/r1/LATEST")" = "gen-0001" ] && [ ! -e "$work/r1/gen-0002.tmp" ] || fail "train --check played a generation"
expect_exit 2 "nope.klv2" "$bin" train --check --run "$work/chk" --set leaves.initial="$work/nope.klv2"
expect_exit 2 "mcgs.anchor" "$bin" train --check --run "$work/chk" "${tiny_run[@]}" --set run.player=mcgs:visits=4 \
  --set mcgs.anchor=nope --set mcgs.anchor_pairs=1
[ ! -e "$work/chk" ] || fail "a failed train --check created the run directory"
# run.keep on a finished run: nothing to play, and the older generations are pruned at start-up
"$bin" train --run "$work/r2" "${tiny_run[@]}" --set run.keep=1 > "$work/keep.log" 2>&1 || { cat "$work/keep.log"; fail "run.keep on a finished run"; }
grep -q "nothing to do" "$work/keep.log" && grep -q "run.keep = 1 after gen 1: removed [1-9][0-9]* file(s)" "$work/keep.log" \
  || { cat "$work/keep.log"; fail "run.keep should prune a finished run"; }
[ ! -e "$work/r2/gen-0000/leaves.klv2" ] && [ -f "$work/r2/gen-0001/leaves.klv2" ] && [ -f "$work/r2/gen-0000/manifest.json" ] \
  || fail "run.keep = 1 on a finished run: gen 0's leaves should go, gen 1's and gen 0's manifest stay"
# a malformed LATEST is reported, not overwritten
echo garbage > "$work/r1/LATEST"
expect_exit 2 "LATEST" "$bin" train --run "$work/r1" "${tiny_run[@]}" --set run.generations=2
out=$("$bin" match --a static:leaves=zero --b static --pairs 3)
echo "$out" | grep "pairs 3, games 6" >/dev/null || fail "match output: $out"
# rookery leaves: bag-aware leaves from the run's rack equities
req="$work/r1/gen-0001/racks.req"
full='AAAAAAAAABBCCDDDDEEEEEEEEEEEEFFGGGHHIIIIIIIIIJKLLLLMMNNNNNNOOOOOOOOPPQRRRRRRSSSSTTTTTTUUUUVVWWXYYZ??'
"$bin" leaves --help | grep -- "--unseen" >/dev/null || fail "leaves --help"
"$bin" leaves --req "$req" --unseen "$full" -o "$work/full.klv2" > "$work/lv.log" || fail "leaves, full pool"
grep "914624 leaves for a pool of 100 tiles" "$work/lv.log" >/dev/null || fail "leaves output: $(cat "$work/lv.log")"
empty='15/15/15/15/15/15/15/15/15/15/15/15/15/15/15'
"$bin" movegen --cgp "$empty EEQS/ 0/0 0" --leaves "$work/full.klv2" --top 1 >/dev/null || fail "derived leaves do not load"
"$bin" leaves --req "$req" --cgp "$empty EEQS/ 0/0 0" -o "$work/cgp.klv2" > "$work/lv2.log" || fail "leaves --cgp"
grep "pool of 100 tiles (96 unseen + 4 on the rack)" "$work/lv2.log" >/dev/null || fail "leaves --cgp: $(cat "$work/lv2.log")"
out=$("$bin" leaves --req "$req" --cgp "$empty EEQS/ 0/0 0" --rerank 3 --leaves "$work/full.klv2")
echo "$out" | grep "bag-aware" >/dev/null || fail "leaves --rerank: $out"
[ "$(echo "$out" | grep -c '^ *[0-9] ')" -eq 3 ] || fail "leaves --rerank 3 shows 3 moves: $out"
expect_error 2 "contradicts the position" "$bin" leaves --req "$req" --cgp "$empty EEQS/ 0/0 0" --unseen ABC -o "$work/x.klv2"
expect_error 2 "more Z than the distribution" "$bin" leaves --req "$req" --unseen ZZ -o "$work/x.klv2"
expect_error 2 "2 Z" "$bin" leaves --req "$req" --unseen Z --rack Z -o "$work/x.klv2"
expect_error 2 "--unseen 'A1'" "$bin" leaves --req "$req" --unseen A1 -o "$work/x.klv2"
expect_error 2 "8 tiles" "$bin" leaves --req "$req" --unseen A --rack ABCDEFGH -o "$work/x.klv2"
expect_error 2 "-o OUT.klv2" "$bin" leaves --req "$req" --unseen A
expect_error 2 "--shrink: bad value '-2'" "$bin" leaves --req "$req" --unseen A -o "$work/x.klv2" --shrink -2
expect_error 2 "--rerank needs" "$bin" leaves --req "$req" --unseen A --rerank 3
printf 'REQ2garbage' > "$work/bad.req"
expect_error 2 "bad.req" "$bin" leaves --req "$work/bad.req" --unseen A -o "$work/x.klv2"
head -c 100000 "$req" > "$work/short.req"
expect_error 2 "short.req" "$bin" leaves --req "$work/short.req" --unseen A -o "$work/x.klv2"
expect_error 2 "missing.req" "$bin" leaves --req "$work/missing.req" --unseen A -o "$work/x.klv2"
[ ! -e "$work/x.klv2" ] || fail "a .klv2 was written despite an error"
echo "train.sh: all checks passed"
