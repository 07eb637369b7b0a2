#!/usr/bin/env bash
# rookery nn (train, eval), rookery info on models and shards, the nn players of the match
# harness, the Python examples of docs/, and bad input: one-line errors, exit 2.
#   nn.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
docs="$(cd "$(dirname "$0")/../../docs" && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" nn --help | grep "nn train" >/dev/null || fail "nn --help"
expect_error 2 "unknown subcommand" "$bin" nn fly
expect_error 2 "give --run" "$bin" nn train
expect_error 2 "config.ini" "$bin" nn eval --run "$work/none" --model x.h5
expect_error 2 "generation" "$bin" nn train --run "$work/none" --generation x
if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; no network runs"
fi
export ROOKERY_LEXICON="$kwg"
run="$work/run"
"$bin" train --run "$run" "${tiny_run[@]}" --set run.games_per_generation=30 --set run.generations=1 \
  --set match.pairs=0 --set spv.heldout_games=0 --set spv.match_pairs=0 --set run.progress_seconds=0 > "$work/train.log" \
  || { cat "$work/train.log"; fail "a training run with the network"; }
grep "gen 1 nn:" "$work/train.log" | grep "P top-1" >/dev/null || fail "no network line in the training log"
model="$run/gen-0001/model.h5"; shard="$run/gen-0001/shard-00000.h5"
[ -f "$model" ] && [ -f "$shard" ] || fail "no model.h5 or shard in gen-0001"
grep -q '"model.h5"' "$run/gen-0001/manifest.json" || fail "model.h5 not in the manifest"
head -1 "$run/metrics.csv" | grep -q "nn_p_top1" || fail "no network columns in metrics.csv"

"$bin" info "$model" | grep -q "parameters" || fail "info on a model"
"$bin" info "$shard" > "$work/info.txt" || fail "info on a shard"
grep -q "samples " "$work/info.txt" || fail "info on a shard: samples"
# static self-play: softmax P targets (no 1/N grid), no search estimates
grep -q "P grid          none" "$work/info.txt" || { cat "$work/info.txt"; fail "info: softmax targets on a grid"; }
grep -q "V estimates     none" "$work/info.txt" || { cat "$work/info.txt"; fail "info: estimates without a search"; }
"$bin" nn eval --run "$run" --model "$model" > "$work/eval.txt" || fail "nn eval"
grep -q "P top-1" "$work/eval.txt" || fail "nn eval: no P line"
# static self-play: the move played is static equity's best with the leaves it was played with
# (gen-0000's, the default), so that baseline agrees every time; with other leaves it need not
grep -q "static equity's best 100.00%" "$work/eval.txt" || { cat "$work/eval.txt"; fail "nn eval: static baseline"; }
grep -q "P x static" "$work/eval.txt" || fail "nn eval: no cross-entropy line"
grep -Eq "P x static's over the top 8 [0-9]+\.[0-9]{2}%" "$work/eval.txt" || { cat "$work/eval.txt"; fail "nn eval: no top-1 of P x static"; }
grep -Eq "over the top 8 [0-9]+\.[0-9]{4}, P x static [0-9]+\.[0-9]{4}" "$work/eval.txt" || { cat "$work/eval.txt"; fail "nn eval: no static cross-entropy over the candidates"; }
grep -q '"p_static_top1": [01]\.' "$run/gen-0001/manifest.json" || fail "no p_static_top1 in the manifest"
json_get "$run/gen-0001/manifest.json" nn.heldout.static_cand_ce | grep -Eq '^[0-9]+\.[0-9]+$' || fail "no static_cand_ce in the manifest"
grep "gen 1 nn:" "$work/train.log" | grep -q "P cross-entropy" || fail "no P cross-entropy in the training log"
# nn.reference: each new model is also scored on another run's generation, whose games it never saw
ref_args=("${tiny_run[@]}" --set run.games_per_generation=20 --set run.generations=1 --set run.seed=5 --set match.pairs=0
  --set spv.heldout_games=0 --set spv.match_pairs=0 --set run.progress_seconds=0)
"$bin" train --run "$work/run_ref" "${ref_args[@]}" --set nn.reference="$run:1" > "$work/ref.log" \
  || { cat "$work/ref.log"; fail "a run with nn.reference"; }
grep -Eq "gen 1 reference \($run generation 1, [0-9]+ positions, [0-9]+ with a P target\): P top-1 [0-9.]+% .*static over the top 8 [0-9]+\.[0-9]{3}, P x static [0-9]+\.[0-9]{3}" "$work/ref.log" \
  || { cat "$work/ref.log"; fail "no reference line"; }
grep -qx "reference = $run:1" "$work/run_ref/config.ini" || fail "nn.reference not in the run's config"
# ... and kept: in the manifest (inside "nn"), metrics.csv and the report
grep -Eq "\"reference\": \{\"run\": \"$run\", \"generation\": 1, \"positions\": [1-9][0-9]*, \"p_positions\": [1-9][0-9]*, .*\"p_static_ce\": [0-9]+\.[0-9]+" \
  "$work/run_ref/gen-0001/manifest.json" || { cat "$work/run_ref/gen-0001/manifest.json"; fail "no reference in the manifest"; }
head -1 "$work/run_ref/metrics.csv" | grep -q ",ref_generation,ref_positions,ref_p_positions," || fail "no reference columns in metrics.csv"
ref_row=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["ref_generation"], $c["ref_p_positions"], $c["ref_p_static_ce"], $c["ref_static_cand_ce"] }' "$work/run_ref/metrics.csv")
echo "$ref_row" | grep -Eq '^1 [1-9][0-9]* [0-9]+\.[0-9]{4} [0-9]+\.[0-9]{4}$' || fail "reference columns of generation 1: $ref_row"
for m in "$work/run_ref/gen-0001/manifest.json" "$run/gen-0001/manifest.json"; do
  /usr/bin/python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$m" || fail "$m is not valid JSON"
done
rc=0; "$bin" report "$work/run_ref" --png "$work/ref.png" > "$work/report.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || command -v gnuplot >/dev/null || rc=0  # 1 without gnuplot: the table is printed all the same
[ "$rc" -eq 0 ] || { cat "$work/report.txt"; fail "report of the run with a reference exited $rc"; }
read -r _ _ ref_ps ref_s <<< "$ref_row"
grep "ref PxS" "$work/report.txt" > /dev/null || { cat "$work/report.txt"; fail "report: no reference columns"; }
grep -Eq "^ +1 .* $ref_ps +$ref_s\$" "$work/report.txt" || { cat "$work/report.txt"; fail "report: reference figures of generation 1"; }
# a run without nn.reference: zeros in the columns, nothing in the manifest, no columns in the report
grep -q '"reference"' "$run/gen-0001/manifest.json" && fail "a reference in a run without nn.reference"
zeros=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { print $c["ref_generation"], $c["ref_p_positions"], $c["ref_p_static_ce"] }' "$run/metrics.csv")
[ "$zeros" = "0 0 0.0000" ] || fail "reference columns of a run without nn.reference: $zeros"
rc=0; "$bin" report "$run" --png "$work/noref.png" > "$work/report-noref.txt" 2>&1 || rc=$?
grep -q "^ *1 " "$work/report-noref.txt" || { cat "$work/report-noref.txt"; fail "report of the run without a reference ($rc)"; }
grep -q "ref PxS" "$work/report-noref.txt" && fail "report: reference columns without a reference"
expect_error 2 "nn.reference $work/none: no complete generation" "$bin" train --run "$work/run_bad" "${ref_args[@]}" --set nn.reference="$work/none"
expect_error 2 "nn.reference $run:7: $run has generations 1..1" "$bin" train --run "$work/run_bad2" "${ref_args[@]}" --set nn.reference="$run:7"
# a reference whose played-with leaves were pruned is refused at start, not scored with other leaves
mkdir -p "$work/pruned" && cp -r "$run/gen-0000" "$run/gen-0001" "$run/LATEST" "$work/pruned/"
rm "$work/pruned/gen-0000/leaves.klv2"
expect_error 2 "pruned/gen-0000/leaves.klv2, the leaves its games were played with, is missing" "$bin" train \
  --run "$work/run_bad3" "${ref_args[@]}" --set nn.reference="$work/pruned"
expect_error 2 "nope.klv2" "$bin" nn eval --run "$run" --model "$model" --leaves "$work/nope.klv2"
# nn.initial: a new run's network starts from a model (its architecture wins over nn.channels);
# gen-0000 keeps the very bytes, generation 1 trains on from its step, a resume ignores the key
"$bin" train --run "$work/run_init" "${ref_args[@]}" --set nn.channels=8 --set nn.initial="$model" > "$work/init.log" \
  || { cat "$work/init.log"; fail "a run with nn.initial"; }
grep -q "model: starts from nn.initial = $model (step 3, 4 channels x 1 blocks" "$work/init.log" \
  || { cat "$work/init.log"; fail "nn.initial: no log line"; }
cmp -s "$model" "$work/run_init/gen-0000/model.h5" || fail "gen-0000/model.h5 is not nn.initial's model"
grep -q "\"initial_model\": \"$model\"" "$work/run_init/gen-0000/manifest.json" || fail "nn.initial not in gen 0's manifest"
grep -q "\"model.h5\": {\"bytes\"" "$work/run_init/gen-0000/manifest.json" || fail "gen 0's model.h5 not checksummed"
"$bin" info "$work/run_init/gen-0001/model.h5" > "$work/info-init.txt"
grep -q "train step      6" "$work/info-init.txt" && grep -q "channels 4," "$work/info-init.txt" \
  || { cat "$work/info-init.txt"; fail "generation 1 did not train on from nn.initial's model"; }
"$bin" train --run "$work/run_init" "${ref_args[@]}" --set nn.channels=8 --set run.generations=2 --set nn.initial="$model" > "$work/init2.log" \
  || { cat "$work/init2.log"; fail "resuming a run with nn.initial"; }
grep -q "gen-0001/model.h5 (step 6, .*nn.initial applies to a new run only" "$work/init2.log" \
  || { cat "$work/init2.log"; fail "a resumed run should continue its own model"; }
expect_error 2 "nope.h5" "$bin" train --run "$work/run_init_bad" "${ref_args[@]}" --set nn.initial="$work/nope.h5"
[ ! -e "$work/run_init_bad" ] || fail "a run directory was created for a missing nn.initial"
expect_exit 2 "nn.initial = $model needs nn.train = yes" "$bin" train --run "$work/run_init_bad" "${ref_args[@]}" \
  --set nn.initial="$model" --set nn.train=no
"$bin" nn train --run "$run" --set nn.steps=2 --out "$work/a.h5" > "$work/nt.log" || { cat "$work/nt.log"; fail "nn train"; }
grep -q "wrote $work/a.h5" "$work/nt.log" || fail "nn train did not say what it wrote"
"$bin" nn train --run "$run" --set nn.steps=2 --out "$work/b.h5" > /dev/null
cmp -s "$work/a.h5" "$work/b.h5" || fail "nn train is not deterministic"
"$bin" nn train --run "$run" --set nn.steps=2 > /dev/null
[ -f "$run/nn/model-gen-0001.h5" ] || fail "nn train's default output"

# the network's players
"$bin" match --a "nn:greedy,model=$model" --b static --pairs 1 | grep -q "A win%" || fail "nn:greedy match"
"$bin" match --a "nn:value,model=$model,candidates=3,samples=2" --b static --pairs 1 | grep -q "A win%" \
  || fail "nn:value match"
expect_error 2 "greedy or value" "$bin" match --a "nn:best,model=$model" --b static --pairs 1
expect_error 2 "model=" "$bin" match --a "nn:greedy" --b static --pairs 1
expect_error 2 "nope.h5" "$bin" match --a "nn:greedy,model=$work/nope.h5" --b static --pairs 1
expect_error 2 "candidates" "$bin" match --a "nn:value,model=$model,candidates=0" --b static --pairs 1

# damaged and mismatched files
head -c 2000 "$model" > "$work/trunc.h5"
expect_error 2 "trunc.h5" "$bin" nn eval --run "$run" --model "$work/trunc.h5"
expect_error 2 "trunc.h5" "$bin" info "$work/trunc.h5"
head -c 3000 "$shard" > "$work/shard-trunc.h5"
expect_error 2 "shard-trunc.h5" "$bin" info "$work/shard-trunc.h5"
cp "$shard" "$run/gen-0001/shard-00001.h5"
head -c 5000 "$shard" > "$run/gen-0001/shard-00001.h5"
expect_error 2 "shard-00001.h5" "$bin" nn eval --run "$run" --model "$model"
rm "$run/gen-0001/shard-00001.h5"

if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
  /usr/bin/python3 "$docs/examples/read_shard.py" "$shard" | grep -q "samples of generation 1" || fail "read_shard.py"
  /usr/bin/python3 "$docs/examples/read_model.py" "$model" | grep -q "tensors" || fail "read_model.py"
  cp "$model" "$work/v2.h5"
  /usr/bin/python3 -c "import h5py,sys; f=h5py.File(sys.argv[1],'r+'); f.attrs['feature_version']=99; f.close()" "$work/v2.h5"
  expect_error 2 "feature version" "$bin" nn eval --run "$run" --model "$work/v2.h5"
  expect_error 2 "feature version" "$bin" match --a "nn:greedy,model=$work/v2.h5" --b static --pairs 1
  expect_error 2 "feature version" "$bin" match --a "mcgs:visits=4,net=$work/v2.h5,rollout=0" --b static --pairs 1
  expect_error 2 "feature version" "$bin" train --run "$work/run_v2" "${ref_args[@]}" --set nn.initial="$work/v2.h5"
else
  echo "note: h5py is not installed; the Python examples were not run"
fi
# the search guided by the model: a short match, and the benchmark's figures
"$bin" match --a "mcgs:visits=6,candidates=4,net=$model,rollout=0,hidden=net,batch=4" --b static --pairs 1 \
  | grep -q "pairs 1, games 2" || fail "match with the net-guided search"
out=$("$bin" bench mcgs --player "mcgs:visits=8,candidates=4,net=$model,rollout=0,batch=4" --positions 2)
echo "$out" | grep -q "average batch" || fail "bench mcgs with a net: $out"
echo "$out" | grep -q "(default leaves .*SOWPODS.klv2)" || fail "bench mcgs: the player without the lexicon's leaves: $out"
expect_error 2 "not an mcgs" "$bin" bench mcgs --player static --positions 1
# H scored next to the exact inference on the same leaves
out=$("$bin" bench infer --calibrate 1 --enumerate 100 --samples 20 --nets "$model")
echo "$out" | grep -q "net $model: H (features version 2) on the same leaves" || fail "bench infer --nets: $out"
[ "$(echo "$out" | grep -c "bag  7-86")" = 2 ] || fail "bench infer --nets: no totals for the model and the net: $out"
expect_error 2 "missing.h5" "$bin" bench infer --calibrate 1 --nets "$work/missing.h5"
expect_error 2 "at most 4" "$bin" bench infer --calibrate 1 --nets "$model,$model,$model,$model,$model"
expect_error 2 "an empty file name" "$bin" bench infer --calibrate 1 --nets "$model,"

# nn.prior = equity: the policy's score prior values moves by static equity, so the model needs
# leaves wherever it runs (docs/features.md)
run2="$work/run-eq"
"$bin" train --run "$run2" "${tiny_run[@]}" --set nn.prior=equity --set run.games_per_generation=20 \
  --set run.generations=1 --set match.pairs=0 --set spv.heldout_games=0 --set spv.match_pairs=0 \
  --set run.progress_seconds=0 > "$work/train-eq.log" || { cat "$work/train-eq.log"; fail "a run with nn.prior = equity"; }
grep -q "^prior = equity" "$run2/config.ini" || fail "config.ini does not keep nn.prior"
meq="$run2/gen-0001/model.h5"
"$bin" info "$meq" > "$work/info-eq.txt" && grep -q "prior equity" "$work/info-eq.txt" || fail "info: the model's prior"
"$bin" info "$model" > "$work/info-sc.txt" && grep -q "prior score" "$work/info-sc.txt" || fail "info: the score prior"
"$bin" nn eval --run "$run2" --model "$meq" | grep -q "P x static" || fail "nn eval of an equity-prior model"
leaves="$run2/gen-0001/leaves.klv2"
"$bin" match --a "mcgs:visits=6,candidates=4,net=$meq,hidden=net,leaves=$leaves" --b static --pairs 1 \
  > "$work/m-eq.txt" 2> "$work/m-eq.err" || fail "match with an equity-prior net"
grep -q "pairs 1, games 2" "$work/m-eq.txt" && ! grep -q "warning" "$work/m-eq.err" || fail "equity-prior search"
"$bin" match --a "nn:greedy,model=$meq,leaves=$leaves" --b static --pairs 1 2> "$work/g-eq.err" | grep -q "A win%" \
  && ! grep -q "warning" "$work/g-eq.err" || fail "nn:greedy with an equity-prior model and leaves"
# without leaves (leaves=zero: no default leaves either) it says so (once) and plays static moves
"$bin" match --a "nn:greedy,model=$meq,leaves=zero" --b static --pairs 1 2> "$work/g-no.err" > /dev/null
[ "$(grep -c "needs leaves" "$work/g-no.err")" = 1 ] || { cat "$work/g-no.err"; fail "an equity-prior model without leaves"; }
# naming none, it gets the lexicon's default leaves when there are some (docs/leaves.md, "Shipped leaves")
if [ -f "${kwg%.kwg}.klv2" ]; then
  "$bin" match --a "nn:greedy,model=$meq" --b static --pairs 1 2> "$work/g-df.err" > /dev/null
  ! grep -q "needs leaves" "$work/g-df.err" || { cat "$work/g-df.err"; fail "nn:greedy did not get the default leaves"; }
fi
echo "nn.sh: all checks passed"
