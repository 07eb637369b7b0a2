#!/usr/bin/env bash
# rookery nn train under mpirun: the same model bytes at np 1, 2, 3 and 6 (6 ranks > 5 gradient
# chunks: one rank idles), continuing from the run's model.h5.
source "$(dirname "$0")/lib.sh"
mpirun_np 2 "$bin" train --run "$work/run" "${tiny_run[@]}" --set run.games_per_generation=24 --set run.generations=1 \
  --set match.pairs=0 --set spv.heldout_games=0 --set spv.match_pairs=0 --set run.progress_seconds=0 > "$work/train.log" 2>&1 \
  || { cat "$work/train.log"; fail "training run"; }
[ -f "$work/run/gen-0001/model.h5" ] || fail "no gen-0001/model.h5"
for np in 1 2 3 6; do
  mpirun_np "$np" "$bin" nn train --run "$work/run" --set nn.steps=3 --set nn.batch=20 --set nn.grad_chunks=5 \
    --out "$work/m$np.h5" > "$work/nn$np.log" 2>&1 || { cat "$work/nn$np.log"; fail "nn train at np $np"; }
  grep -q "gen-0001/model.h5 (step 3" "$work/nn$np.log" || fail "np $np did not continue from the run's model"
done
for np in 2 3 6; do
  cmp -s "$work/m1.h5" "$work/m$np.h5" || fail "the model trained at np $np differs from np 1"
done
# the afterstate network on the same run's shards: the same bytes at np 1, 2 and 3 (3 chunks at
# np 2: one rank computes two), its held-out figures printed; bad input is one line and exit 2
for np in 1 2 3; do
  mpirun_np "$np" "$bin" afterstate train --run "$work/run" --steps 4 --batch 30 --hidden1 8 --hidden2 4 \
    --out "$work/a$np.h5" > "$work/aft$np.log" 2>&1 || { cat "$work/aft$np.log"; fail "afterstate train at np $np"; }
done
for np in 2 3; do
  cmp -s "$work/a1.h5" "$work/a$np.h5" || fail "the afterstate network trained at np $np differs from np 1"
done
grep -q "Brier score" "$work/aft1.log" || { cat "$work/aft1.log"; fail "afterstate train printed no held-out figures"; }
"$bin" afterstate eval --run "$work/run" --model "$work/a1.h5" > "$work/afteval.log" 2>&1 \
  || { cat "$work/afteval.log"; fail "afterstate eval"; }
grep -q "held-out: [1-9][0-9]* afterstates" "$work/afteval.log" || fail "afterstate eval: $(cat "$work/afteval.log")"
rc=0; "$bin" afterstate eval --run "$work/run" --model "$work/run/gen-0001/model.h5" > /dev/null 2> "$work/bad.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "not a rookery afterstate network" "$work/bad.err" || fail "a P/V/H model as --model: rc $rc, $(cat "$work/bad.err")"
rc=0; "$bin" afterstate train --steps 3 > /dev/null 2> "$work/bad.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "give --run" "$work/bad.err" || fail "afterstate train without --run: rc $rc"
rc=0; "$bin" afterstate fit --run "$work/run" > /dev/null 2> "$work/bad.err" || rc=$?
[ "$rc" -eq 2 ] && grep -q "unknown subcommand 'fit'" "$work/bad.err" || fail "afterstate fit: rc $rc"
"$bin" afterstate --help | grep -q "usage: mpirun" || fail "afterstate --help"
# a run that holds no games out (nn.heldout_every = 0) has nothing to measure on: refused by name
cp -r "$work/run" "$work/run0"
sed -i 's/^heldout_every *=.*/heldout_every = 0/' "$work/run0/config.ini"
grep -q '^heldout_every = 0' "$work/run0/config.ini" || fail "the test could not set nn.heldout_every = 0"
rc=0; "$bin" afterstate train --run "$work/run0" --steps 3 > /dev/null 2> "$work/bad.err" || rc=$?
[ "$rc" -ne 0 ] && grep -q "nn.heldout_every = 0" "$work/bad.err" || fail "afterstate train, nothing held out: rc $rc, $(cat "$work/bad.err")"
# nn.prior = equity: every rank values the moves with the leaves (a rank without them used to
# wait forever in the others' gradient gather), and the bytes still do not depend on the ranks
mpirun_np 2 "$bin" train --run "$work/run-eq" "${tiny_run[@]}" --set nn.prior=equity --set run.games_per_generation=24 \
  --set run.generations=1 --set match.pairs=0 --set spv.heldout_games=0 --set spv.match_pairs=0 \
  --set run.progress_seconds=0 > "$work/train-eq.log" 2>&1 || { cat "$work/train-eq.log"; fail "training run, equity prior"; }
for np in 1 3; do
  timeout 300 "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$bin" nn train --run "$work/run-eq" \
    --set nn.steps=3 --set nn.batch=20 --set nn.grad_chunks=5 --out "$work/eq$np.h5" > "$work/nneq$np.log" 2>&1 \
    || { cat "$work/nneq$np.log"; fail "nn train of an equity-prior model at np $np"; }
done
cmp -s "$work/eq1.h5" "$work/eq3.h5" || fail "the equity-prior model trained at np 3 differs from np 1"
# a second generation with run.keep = 1 and a window of 1 removes gen 1's shards (the run no longer
# reads them); nn train over a window of 2 then says that generation 1 has none
mpirun_np 2 "$bin" train --run "$work/run" --set run.generations=2 --set run.keep=1 --set nn.window=1 > "$work/keep.log" 2>&1 \
  || { cat "$work/keep.log"; fail "second generation with run.keep = 1"; }
if ls "$work/run/gen-0001"/shard-*.h5 > /dev/null 2>&1; then fail "run.keep = 1 with nn.window = 1 kept gen 1's shards"; fi
mpirun_np 1 "$bin" nn train --run "$work/run" --set nn.window=2 --set nn.steps=1 --out "$work/w2.h5" > "$work/w2.log" 2>&1 \
  || { cat "$work/w2.log"; fail "nn train over a pruned generation"; }
grep -q "note: 1 generation(s) of 1-2 have no shards" "$work/w2.log" || { cat "$work/w2.log"; fail "no note on the missing shards"; }
echo "nn_train: identical models at np 1, 2, 3, 6; equity prior at np 1, 3; afterstate networks at np 1, 2, 3"
