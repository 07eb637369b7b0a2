#!/usr/bin/env bash
# rookery bench nn: --help, bad option values (exit 2, one line naming the
# value), and a run with a tiny network and small counts whose every output
# line is there, with the analytic FLOP count of that network.
#   bench_nn.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"

"$bin" bench nn --help | grep '^usage: rookery bench nn' >/dev/null || fail "bench nn --help"
"$bin" bench --help | grep 'rookery bench nn' >/dev/null || fail "bench --help does not list nn"

expect_error 2 "--channels: bad value '0'" "$bin" bench nn --channels 0
expect_error 2 "--h-tiles: bad value '3'" "$bin" bench nn --h-tiles 3
expect_error 2 "--seconds: bad value 'x'" "$bin" bench nn --seconds x
expect_error 2 "--positions must be at least 1" "$bin" bench nn --positions 0
expect_error 2 "--steps needs a value" "$bin" bench nn --steps
expect_error 2 "unknown or incomplete option '--bogus'" "$bin" bench nn --bogus
expect_error 2 "drop the architecture options" "$bin" bench nn --model m.h5 --blocks 2

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the bench nn run did not happen"
fi
expect_error 2 "nothing.kwg" "$bin" bench nn --lexicon /nonexistent/nothing.kwg

# C 4, 1 block, E 8, Hh 8, 103 planes (feature version 2): trunk 1,799,800 (the stem's 3x3
# convolution 2*225*9*103*4, the block's two 2*225*9*4*4, the dense layers), value 2*(8*8 + 8*4) = 192, sub-moves 2*(225*4*14 + 8*8) = 25,328.
out=$("$bin" bench nn --lexicon "$kwg" --channels 4 --blocks 1 --embed 8 --head-hidden 8 \
      --positions 40 --seconds 0 --steps 2)
for pat in '^bench nn: channels 4, blocks 1, embed 8, head-hidden 8, h-tiles 1 .* 40 positions of' \
           '^sgemm peak: 1024x1024x1024, [0-9]* products in .* GFLOP/s' \
           '^forward FLOPs per position: 1\.83 M (trunk 1\.80 M, value 0\.000 M, sub-moves 0\.025 M)' \
           '^ *1 .*%$' '^ *16 .*%$' '^ *64 .*%$' '^ *256 .*%$' \
           '^nn_batch_set: [0-9.]* us per position .* features [0-9.]* us' \
           '^nn_policy_all: [0-9.]* positions/s .* step-head rows and [0-9.]* legal moves per position' \
           '^trainer (nn_train, one process, batch 128, grad_chunks 8): 2 steps in .* samples/s'; do
  printf '%s\n' "$out" | grep -- "$pat" >/dev/null || fail "bench nn output lacks /$pat/: $out"
done

# rookery bench afterstate: a value player's decision, its parts named
"$bin" bench afterstate --help | grep '^usage: rookery bench afterstate' >/dev/null || fail "bench afterstate --help"
expect_error 2 "--candidates: bad value '65'" "$bin" bench afterstate --candidates 65
expect_error 2 "not an HDF5 file" "$bin" bench afterstate --lexicon "$kwg" --model "$0"
out=$("$bin" bench afterstate --lexicon "$kwg" --positions 5 --hidden1 8 --hidden2 4)
for pat in '^bench afterstate: 5 positions, 16 candidates, network 8 x 4' '^  static decision' \
           '^  afterstates and features .* active features an afterstate' '^  network forward' '^  value decision in all'; do
  grep -qE "$pat" <<<"$out" || fail "bench afterstate: no line '$pat' in: $out"
done
echo "bench_nn.sh: all checks passed"
