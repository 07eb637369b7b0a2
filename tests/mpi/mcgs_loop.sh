#!/usr/bin/env bash
# The search's generation loop (run.player = mcgs:...): generation 1 searches without a net
# and trains the first model; the gatekeeper promotes it (gate_threshold 0) and generation 2
# searches with it (V values its leaf nodes, H deals its worlds); in generation 3 the gate (threshold 101, which no
# model can reach) keeps gen-0002's model. The P targets of the shards are visit distributions.
# The snapshots are byte-identical at np 1, 2 and 3 (np 3 with 2 self-play threads a rank,
# run.threads: each thread has its own search with the net), and a resumed run (np 2)
# continues from the model in force recorded in the manifest. With rollout_with_net = auto the
# value check switches the leaf values to V (the case where the rollouts stay, run.keep, the
# anchor's own deals and the start-up refusals run on one process: tests/cli/mcgs_single.sh).
source "$(dirname "$0")/lib.sh"
args=("${tiny_run[@]}" --set run.player=mcgs:visits=12,candidates=5 --set run.games_per_generation="$(size 12 6)"
      --set run.progress_seconds=0 --set match.pairs=2 --set spv.heldout_games=0 --set spv.match_pairs=0
      --set mcgs.gate_pairs=2 --set mcgs.anchor_pairs=1 --set mcgs.candidates_with_net=mix
      --set nn.value_search_weight=0.5)
# the sanitizer pass (size) compares np 2 with np 3 only: np 3 runs two threads a rank, the
# Release pass compares all three
others=$(size "1 3" "3")
for np in 2 $others; do
  threads=1; [ "$np" = 3 ] && threads=2
  mpirun_np "$np" "$bin" train --run "$work/np$np" "${args[@]}" --set run.generations=2 --set mcgs.gate_threshold=0 \
    --set run.threads=$threads --set mcgs.decisions=2 > "$work/np$np.log" 2>&1 || { cat "$work/np$np.log"; fail "train at np $np"; }
done
log="$work/np2.log"
grep -q "search: mcgs:visits=12,candidates=5 without a net" "$log" || { cat "$log"; fail "generation 1 should search without a net"; }
grep -q "gen 1 gate: the search with the new model vs with no net: .*: promoted" "$log" || { cat "$log"; fail "gen 1 gate"; }
grep -q '"model_in_force": 2' "$work/np2/gen-0002/manifest.json" || fail "gen 2's model should be in force"
# the manifest names the spec that played each generation's games, its net relative to the run
grep -q '"self_play": "mcgs:visits=12,candidates=5",' "$work/np2/gen-0001/manifest.json" \
  || fail "gen 1's self-play had no net"
grep -q '"self_play": "mcgs:visits=12,candidates=5,net=gen-0001/model.h5,rollout=[0-9]*,hidden=[a-z]*,candidates_by=mix"' \
  "$work/np2/gen-0002/manifest.json" || fail "gen 2's self-play spec should name gen-0001's model"
# the anchor: the search with the model in force after the gate against the search without a net
grep -q "gen 1 anchor: the search with gen-0001's model vs search: .*(1 pairs)" "$log" || { cat "$log"; fail "gen 1 anchor"; }
[ "$(json_get "$work/np2/gen-0002/manifest.json" search.anchor.player)" = '"search"' ] \
  && [ "$(json_get "$work/np2/gen-0002/manifest.json" search.anchor.pairs)" = 1 ] || fail "gen 2 manifest: anchor"
for np in $others; do
  [ "$(json_get "$work/np$np/gen-0002/manifest.json" search.anchor)" = "$(json_get "$work/np2/gen-0002/manifest.json" search.anchor)" ] \
    || fail "the anchor result differs at np $np"
done
# the decision study (mcgs.decisions): the same search against the anchor on 2 positions, the
# same figures at every np
grep -Eq "gen 1 decisions: the search with gen-0001's model loses [0-9.]+ \+/- [0-9.]+ points a move, search [0-9.]+ \+/- [0-9.]+: a gain of [-+][0-9.]+ \+/- [0-9.]+ over the anchor \(2 positions\)" "$log" \
  || { cat "$log"; fail "gen 1 decisions"; }
[ "$(json_get "$work/np2/gen-0002/manifest.json" search.decisions.positions)" = 2 ] || fail "gen 2 manifest: decisions"
for np in $others; do
  [ "$(json_get "$work/np$np/gen-0002/manifest.json" search.decisions)" = "$(json_get "$work/np2/gen-0002/manifest.json" search.decisions)" ] \
    || fail "the decision study differs at np $np"
done
for np in $others; do same_files "$work/np2" "$work/np$np" 0001 0002; done
search_block() { json_get "$1" search; }
[ "$(json_get "$work/np2/gen-0002/manifest.json" search.gate.pairs)" = 2 ] || fail "gen 2 manifest: gate"
for np in $others; do
  [ "$(search_block "$work/np$np/gen-0002/manifest.json")" = "$(search_block "$work/np2/gen-0002/manifest.json")" ] \
    || fail "the gate result differs at np $np"
done
# the P targets are visit distributions over 12 playouts (every probability is k/12), not all of
# one move; the V targets come with the search's expected final spread on every sample
# (nn.value_search_weight blends it in)
"$bin" info "$work/np2/gen-0002/shard-00000.h5" > "$work/info.txt" 2>&1 || { cat "$work/info.txt"; fail "info on a shard"; }
grep -q "every probability a multiple of 1/12 " "$work/info.txt" || { cat "$work/info.txt"; fail "P targets are not visit distributions"; }
if grep -q ", 100.0% single-move" "$work/info.txt"; then cat "$work/info.txt"; fail "every P target is a single move"; fi
grep -Eq "search's expected final spread on ([0-9]+) of \1 samples; RMS difference from the final spread [0-9.]*[1-9]" \
  "$work/info.txt" || { cat "$work/info.txt"; fail "every searched position should carry the search's estimate"; }
# the gate's players, as the manifest records them: the new model against the one in force, most
# visited move (no temperature)
grep -q '"players": \["mcgs:visits=12,candidates=5,net=gen-0002/model.h5,rollout=[0-9]*,hidden=[a-z]*,candidates_by=mix,temperature=0", "mcgs:visits=12,candidates=5,net=gen-0001/model.h5,.*,temperature=0"\]' \
  "$work/np2/gen-0002/manifest.json" || { cat "$work/np2/gen-0002/manifest.json"; fail "gen 2 manifest: the gate's players"; }
# playout cap randomization: half the decisions (drawn from each decision's seed) search 3
# playouts instead of 12 and record no P target; the snapshots are the same bytes at np 1 and 3
# (2 threads a rank); the gate plays full searches only (full_share=1 appended)
pcr=(--set run.player=mcgs:visits=12,candidates=5,full_share=0.5,fast_visits=3 --set run.generations=1
     --set mcgs.gate_threshold=0)
mpirun_np 1 "$bin" train --run "$work/pcr1" "${args[@]}" "${pcr[@]}" > "$work/pcr1.log" 2>&1 \
  || { cat "$work/pcr1.log"; fail "train with full_share at np 1"; }
mpirun_np 3 "$bin" train --run "$work/pcr3" "${args[@]}" "${pcr[@]}" --set run.threads=2 > "$work/pcr3.log" 2>&1 \
  || { cat "$work/pcr3.log"; fail "train with full_share at np 3"; }
same_files "$work/pcr1" "$work/pcr3" 0001
"$bin" info "$work/pcr1/gen-0001/shard-00000.h5" > "$work/pcr.txt" 2>&1 || { cat "$work/pcr.txt"; fail "info on a pcr shard"; }
grep -q "every probability a multiple of 1/12 " "$work/pcr.txt" || { cat "$work/pcr.txt"; fail "pcr: full searches' targets"; }
none=$(sed -n 's/.*P none *\([0-9]*\) of \([0-9]*\) samples have no P target.*/\1 \2/p' "$work/pcr.txt")
[ -n "$none" ] && [ "${none% *}" -gt 0 ] && [ "${none% *}" -lt "${none#* }" ] \
  || { cat "$work/pcr.txt"; fail "pcr: some samples, not all, should lack a P target ('$none')"; }
estimates=$(sed -n 's/.*expected final spread on \([0-9]*\) of.*/\1/p' "$work/pcr.txt")
[ "$estimates" -eq "$(( ${none#* } - ${none% *} ))" ] || { cat "$work/pcr.txt"; fail "pcr: estimates only from full searches"; }
grep -q '"players": \["mcgs:visits=12,candidates=5,full_share=0.5,fast_visits=3,net=gen-0001/model.h5,.*,temperature=0,full_share=1", "mcgs:visits=12,candidates=5,full_share=0.5,fast_visits=3,temperature=0,full_share=1"\]' \
  "$work/pcr1/gen-0001/manifest.json" || { cat "$work/pcr1/gen-0001/manifest.json"; fail "pcr: the gate's players should search in full"; }
# resume: a third generation from the recorded model in force; the gate cannot pass
mpirun_np 2 "$bin" train --run "$work/np2" --set run.generations=3 --set mcgs.gate_threshold=101 \
  > "$work/resume.log" 2>&1 || { cat "$work/resume.log"; fail "resume"; }
grep -q "search: mcgs:visits=12,candidates=5 guided by gen-0002/model.h5 (.*net=gen-0002/model.h5.*candidates_by=mix)" "$work/resume.log" \
  || { cat "$work/resume.log"; fail "the resumed run should search with gen-0002's model"; }
grep -q "gen 3 gate: .*not promoted" "$work/resume.log" || { cat "$work/resume.log"; fail "gen 3 gate"; }
grep -q '"model_in_force": 2' "$work/np2/gen-0003/manifest.json" || fail "gen 2's model should stay in force"
# rookery report shows the gate's curve and the model in force (then the anchor, the value check and the leaves)
"$bin" report "$work/np2" --png "$work/r.png" > "$work/report.txt" 2>&1 || true
grep -q "gate %" "$work/report.txt" || { cat "$work/report.txt"; fail "report without the gate column"; }
grep -q "anchor %" "$work/report.txt" || { cat "$work/report.txt"; fail "report without the anchor column"; }
grep -q "dec gain" "$work/report.txt" || { cat "$work/report.txt"; fail "report without the decisions column"; }
awk '$1 == 3 {print $(NF-4)}' "$work/report.txt" | grep -qx 2 || { cat "$work/report.txt"; fail "report: gen 3 should keep model 2"; }
awk '$1 == 3 {print $(NF-3)}' "$work/report.txt" | grep -Eqx '[0-9]+\.[0-9]+' \
  || { cat "$work/report.txt"; fail "report: gen 3 should have an anchor result"; }
awk '$1 == 3 {print $NF}' "$work/report.txt" | grep -Eqx -- '[-+][0-9]+\.[0-9]{3}\+/-[0-9]+\.[0-9]{3}' \
  || { cat "$work/report.txt"; fail "report: gen 3 should have a decisions gain"; }
# rollout_with_net = auto: rollouts value the leaves until V wins its value check (V leaves against
# rollouts, both with the model in force). Threshold 0: V wins at once, from gen 2 on, and a resumed
# run keeps it (the manifest's leaf_rollout); the anchor, V against the search without a net, is
# then not the gate's match (rollouts against it), though as many pairs.
auto=(--set mcgs.rollout_with_net=auto --set mcgs.value_check_pairs=2 --set mcgs.anchor_pairs=2)
mpirun_np 2 "$bin" train --run "$work/auto" "${args[@]}" "${auto[@]}" --set run.generations=1 --set mcgs.gate_threshold=0 \
  --set mcgs.value_check_threshold=0 > "$work/auto.log" 2>&1 || { cat "$work/auto.log"; fail "train with rollout_with_net = auto"; }
grep -q "gen 1 value check: gen-0001's model, V leaves vs 2-ply rollouts: .*(2 pairs, threshold 0.0%): V values the leaves" \
  "$work/auto.log" || { cat "$work/auto.log"; fail "gen 1 value check"; }
[ "$(json_get "$work/auto/gen-0001/manifest.json" search.leaf_rollout)" = 0 ] || fail "V should be in force after gen 1"
[ "$(json_get "$work/auto/gen-0001/manifest.json" search.value_check.pairs)" = 2 ] || fail "gen 1 manifest: value check"
grep -q "gen 1 anchor: .*(2 pairs)$" "$work/auto.log" || { cat "$work/auto.log"; fail "gen 1 anchor should be played"; }
mpirun_np 2 "$bin" train --run "$work/auto" --set run.generations=2 > "$work/auto2.log" 2>&1 \
  || { cat "$work/auto2.log"; fail "resume with rollout_with_net = auto"; }
grep -q "leaves with a net valued by V" "$work/auto2.log" || { cat "$work/auto2.log"; fail "the resumed run should keep V"; }
grep -q '"self_play": "mcgs:visits=12,candidates=5,net=gen-0001/model.h5,rollout=0,' "$work/auto/gen-0002/manifest.json" \
  || fail "gen 2's self-play should value leaves by V"
[ "$(json_get "$work/auto/gen-0002/manifest.json" search.value_check.pairs)" = 0 ] || fail "no value check once V is in force"
[ "$(json_get "$work/auto/gen-0002/manifest.json" search.value_won) $(json_get "$work/auto/gen-0002/manifest.json" search.value_checked_model)" = "true 1" ] || fail "gen 2 should carry V's win"
# rookery report: the value check's win % and the leaves' valuer after each generation
"$bin" report "$work/auto" --png "$work/ra.png" > "$work/ra.txt" 2>&1 || true
grep -q "V chk %" "$work/ra.txt" || { cat "$work/ra.txt"; fail "report without the value check column"; }
awk '$1 == 1 {print $(NF-1), $NF}' "$work/ra.txt" | grep -Eqx '[0-9]+\.[0-9]+ V' || { cat "$work/ra.txt"; fail "report: gen 1 checked, V after"; }
awk '$1 == 2 {print $(NF-1), $NF}' "$work/ra.txt" | grep -qx -- '- V' || { cat "$work/ra.txt"; fail "report: gen 2 not checked, V"; }
echo "mcgs_loop: promotion, visit targets, decisions, identical snapshots at np 1, 2, 3, resume, rollout_with_net = auto"
