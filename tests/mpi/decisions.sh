#!/usr/bin/env bash
# `rookery decisions` under mpirun: the positions are split over the ranks and
# the totals summed exactly, so np 1, 2 and 3 print the same figures (the
# times aside).
source "$(dirname "$0")/lib.sh"
n=$(size 9 5)
for np in 1 2 3; do
  mpirun_np "$np" "$bin" decisions --player static --player sim:plies=1,candidates=3,iterations=6 --positions "$n" \
    --seed 2 --iterations 12 --candidates 5 > "$work/np$np.out" 2> "$work/np$np.err" \
    || { cat "$work/np$np.err"; fail "decisions at np $np"; }
  grep -E "^decisions: $n positions" "$work/np$np.out" >/dev/null || fail "np $np: $(cat "$work/np$np.out")"
  grep -E "on $np rank\(s\)$" "$work/np$np.out" >/dev/null || fail "np $np: rank count: $(cat "$work/np$np.out")"
  # every column but the time a move
  grep -E '^(decisions|[12] )' "$work/np$np.out" | awk '$1 == "decisions:" {print; next} {$(NF-1) = ""; print}' > "$work/np$np.fig"
done
[ "$(grep -c '^[12] ' "$work/np1.fig")" -eq 2 ] || fail "two player rows: $(cat "$work/np1.out")"
cmp -s "$work/np1.fig" "$work/np2.fig" || fail "np 1 and 2 differ: $(cat "$work/np1.fig" "$work/np2.fig")"
cmp -s "$work/np1.fig" "$work/np3.fig" || fail "np 1 and 3 differ: $(cat "$work/np1.fig" "$work/np3.fig")"
echo "decisions: the same figures at np 1, 2 and 3"
