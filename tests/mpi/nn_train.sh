#!/usr/bin/env bash
# rookery nn train under mpirun: the same model bytes at np 1, 2, 3 and 6 (6 ranks > 5 gradient
# chunks: one rank idles), continuing from the run's model.h5.
source "$(dirname "$0")/lib.sh"
mpirun_np 2 "$bin" train --run "$work/run" "${tiny_nn[@]}" --set run.games_per_generation=24 --set run.generations=1 \
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
echo "nn_train: identical models at np 1, 2, 3, 6"
