#!/usr/bin/env bash
# rookery arena under mpirun: pairs dealt to ranks by index, the totals (forfeits and the max
# time a move included) summed over ranks; np 1, 2 and 3 print the same tally and write the
# same GCG files. The engines are the unit tests' fake SIU engine (tests/unit/fake_siu_engine.c).
source "$(dirname "$0")/lib.sh"
fake="$(dirname "$bin")/tests/fake_siu_engine"
[ -x "$fake" ] || { missing "the fake SIU engine is not built"; }
pairs=$(size 7 4)
for np in 1 2 3; do
  mpirun_np "$np" "$bin" arena --a "$fake good" --b "$fake crash" --pairs "$pairs" --gcg "$work/crash$np" \
    > "$work/crash$np.out" 2> "$work/crash$np.err" || { cat "$work/crash$np.err"; fail "np $np good vs crash"; }
  mpirun_np "$np" "$bin" arena --a "$fake good" --b "$fake pass" --pairs "$pairs" --gcg "$work/pass$np" \
    > "$work/pass$np.out" 2> "$work/pass$np.err" || { cat "$work/pass$np.err"; fail "np $np good vs pass"; }
  [ "$(grep -c "B forfeits pair" "$work/crash$np.err")" -eq $((2 * pairs)) ] || fail "np $np: forfeit lines"
  grep -q "on $np rank(s)" "$work/pass$np.out" || fail "np $np: rank count"
done
# the tally lines, without the speed and the times
tally() { grep -E "^(pairs|A win|A forfeits|B forfeits)" "$1" | sed -e 's/; [0-9.]* games\/s.*//' -e 's/; time per move.*over/ over/'; }
for np in 2 3; do
  for kind in crash pass; do
    [ "$(tally "$work/${kind}1.out")" = "$(tally "$work/$kind$np.out")" ] \
      || fail "np $np $kind: $(tally "$work/$kind$np.out") vs $(tally "$work/${kind}1.out")"
    diff -r "$work/${kind}1" "$work/$kind$np" >/dev/null || fail "np $np $kind: GCG files differ"
  done
done
grep -q "B forfeits $((2 * pairs)) (crash $((2 * pairs)), " "$work/crash3.out" || fail "forfeits summed: $(cat "$work/crash3.out")"
# the max time a move comes back from the ranks' maximum (a positive time, not the 0 of no move):
# A's line only, since B (the engine that passes at once) may well answer in under 0.05 ms
a_line=$(grep -E "^A forfeits 0 .*max [0-9.]+ ms over" "$work/pass3.out") && ! grep -q "max 0.0 ms" <<<"$a_line" \
  || fail "max time a move: $(cat "$work/pass3.out")"
echo "arena: the same tally and GCG files at np 1, 2, 3"
