#!/usr/bin/env bash
# rookery report: table from metrics.csv, PNG through gnuplot, clear errors.
#   report.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/run"
cat > "$work/run/metrics.csv" <<'CSV'
generation,games,turns,ranks,games_per_s,wall_s,play_s,reduce_s,derive_s,write_s,mean_best_equity,mean_final_score,bingos_per_game,racks_observed,baseline,leave_change_rms,forced_games,forced_observations
1,100,2300,2,150.00,0.700,0.690,0.001,0.020,0.200,37.9,417.5,2.6,1840,37.9,4.1,0,0
2,100,2400,2,140.00,0.750,0.700,0.001,0.030,0.210,39.0,420.0,2.5,1840,38.5,2.0,10,40
CSV
out=$("$bin" report "$work/run" --png "$work/c.png" 2>&1) || rc=$?
echo "$out" | grep -E '^ +2 +100 +140.00' >/dev/null || fail "report table: $out"
if command -v gnuplot >/dev/null 2>&1; then
  [ -s "$work/c.png" ] || fail "no PNG written"
  head -c 8 "$work/c.png" | od -An -c | grep 'P   N   G' >/dev/null || fail "not a PNG"
  # flat curves (a constant column) draw without gnuplot's "empty range" warnings
  err=$("$bin" report "$work/run" --png "$work/c2.png" 2>&1 >/dev/null) || fail "report with flat curves"
  [ -z "$err" ] || fail "report printed on stderr: $err"
  # an output it cannot write: one line naming it, exit 2, and no image on stdout
  rc=0; "$bin" report "$work/run" --png "$work/no/such/dir/c.png" > "$work/out.txt" 2> "$work/err.txt" || rc=$?
  [ "$rc" -eq 2 ] || fail "unwritable --png exited $rc"
  [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q "cannot write $work/no/such/dir/c.png" "$work/err.txt" \
    || fail "unwritable --png: $(cat "$work/err.txt")"
  if grep -q PNG "$work/out.txt"; then fail "an image went to stdout"; fi
else
  missing_part "gnuplot not installed; PNG not checked"
fi
# a run resumed by a version with the search's and nn.reference's columns: the older row (fewer
# trailing fields) reads "-" there; a row without a search shows no search columns
mkdir -p "$work/run3"
cat > "$work/run3/metrics.csv" <<'CSV'
generation,games,games_per_s,wall_s,mean_best_equity,leave_change_rms,racks_observed,nn_trained,nn_loss_last,nn_p_top1,gate_pairs,gate_win_pct,model_in_force,anchor_pairs,anchor_win_pct,value_check_pairs,value_check_win_pct,leaf_rollout,ref_generation,ref_p_positions,ref_p_static_ce,ref_static_cand_ce
1,10,5.0,2.0,37.0,4.0,100,1,3.5,0.40,0,0,0
2,10,5.0,2.0,38.0,3.0,100,1,3.4,0.45,0,0,0,0,0,0,0,0,1,80,1.2345,1.5000
CSV
rc=0; out=$("$bin" report "$work/run3" --png "$work/c3.png" 2>&1) || rc=$?
if command -v gnuplot >/dev/null 2>&1; then
  [ "$rc" -eq 0 ] && [ -s "$work/c3.png" ] || fail "report with reference columns exited $rc: $out"
fi
echo "$out" | grep -E '^ +1 .* 0\.40 +- +-$' >/dev/null || fail "older row without reference columns: $out"
echo "$out" | grep -E '^ +2 .* 0\.45 +1\.2345 +1\.5000$' >/dev/null || fail "reference columns: $out"
echo "$out" | grep -q "gate %" && fail "search columns in a run without a search: $out"
# with a gate in some row, the search's columns come back
sed -i 's/^2,10,5.0,2.0,38.0,3.0,100,1,3.4,0.45,0,0,0,/2,10,5.0,2.0,38.0,3.0,100,1,3.4,0.45,40,55.00,2,/' "$work/run3/metrics.csv"
out=$("$bin" report "$work/run3" --png "$work/c3.png" 2>&1) || true
echo "$out" | grep -E '^ +2 .* 0\.45 +55\.00 +2 ' >/dev/null || fail "gate columns: $out"
rc=0; err=$("$bin" report "$work/none" 2>&1 >/dev/null) || rc=$?
[ "$rc" -eq 2 ] || fail "missing run exited $rc"
echo "$err" | grep "metrics.csv" >/dev/null || fail "error does not name metrics.csv: $err"
: > "$work/run/metrics.csv"
rc=0; err=$("$bin" report "$work/run" 2>&1 >/dev/null) || rc=$?
[ "$rc" -eq 2 ] && [ "$err" = "rookery: $work/run/metrics.csv: empty (no header line)" ] || fail "empty metrics.csv ($rc): $err"
printf 'generation,games,games_per_s,wall_s,mean_best_equity,leave_change_rms,racks_observed\n1,10,5.0,2.0\n' > "$work/run/metrics.csv"
rc=0; err=$("$bin" report "$work/run" 2>&1 >/dev/null) || rc=$?
[ "$rc" -eq 2 ] && echo "$err" | grep -q "row 2 has 4 fields, expected 7" || fail "short row ($rc): $err"
printf 'a,b\n1,2\n' > "$work/run/metrics.csv"
rc=0; err=$("$bin" report "$work/run" 2>&1 >/dev/null) || rc=$?
[ "$rc" -eq 2 ] || fail "foreign csv exited $rc"
# --columns: any column of the record by name, '-' where an older row stops short of it
printf 'generation,games,nn_p_top1\n1,10\n2,20,0.4100\n' > "$work/run/metrics.csv"
out=$("$bin" report "$work/run" --columns nn_p_top1,games) || fail "--columns exited non-zero"
[ "$(echo "$out" | tr -s ' ' | sed 's/^ //')" = "$(printf 'generation nn_p_top1 games\n1 - 10\n2 0.4100 20')" ] \
  || fail "--columns table: $out"
[ "$("$bin" report "$work/run" --columns list | tr '\n' ' ')" = "generation games nn_p_top1 " ] || fail "--columns list"
expect_error 2 "no column 'bogus' (--columns list names them)" "$bin" report "$work/run" --columns games,bogus
"$bin" report --help | grep usage >/dev/null || fail "--help"
echo "report.sh: all checks passed"
