#!/usr/bin/env bash
# The shipped default leaves (data/leaves/SOWPODS.klv2, copied beside the
# lexicon by the build; docs/leaves.md, "Shipped leaves"): they load, every
# player without leaves= uses them (and says so), leaves=zero and
# ROOKERY_LEAVES=zero opt out, a bad ROOKERY_LEAVES is one error line, and
# training from leaves.initial = zero does not pick them up.
#   default_leaves.sh ROOKERY_BIN SOWPODS_KWG SHARED_DIR
set -euo pipefail
bin="$1"; kwg="${2:-}"
source "$(dirname "$0")/lib.sh"
src="$(cd "$(dirname "$0")/../.." && pwd)"
shipped="$src/data/leaves/SOWPODS.klv2"
[ -f "$shipped" ] || fail "data/leaves/SOWPODS.klv2 is not in the tree"
[ -f "$src/data/leaves/SOWPODS.txt" ] || fail "data/leaves/SOWPODS.txt (the table's recipe and match) is missing"
"$bin" info "$shipped" | grep -q "914624" || fail "rookery info does not read the shipped leaves as 914,624 leaves"

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; the default-leaves checks did not run"
fi
beside="${kwg%.kwg}.klv2"
cmp -s "$shipped" "$beside" || fail "the build did not copy data/leaves/SOWPODS.klv2 beside $kwg"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset ROOKERY_LEAVES

# a player without leaves= plays with the default, and the output says so
out=$("$bin" match --lexicon "$kwg" --a static --b "static:leaves=$shipped" --pairs 20 --seed 3)
echo "$out" | grep -qF "A: static (default leaves $beside)" || fail "match does not name the default leaves: $out"
echo "$out" | grep -q "^B: static:leaves=$shipped\$" || fail "B named its leaves: no default note expected: $out"
# the same table on both sides: every pair is split, exactly 50%
echo "$out" | grep -q "A win% 50.00 " || fail "the default and the named shipped table play differently: $out"
# trained leaves beat playing by score
out=$("$bin" match --lexicon "$kwg" --a static --b static:leaves=zero --pairs 100 --seed 3)
pct=$(echo "$out" | sed -n 's/^A win% \([0-9.]*\) .*/\1/p')
awk -v p="$pct" 'BEGIN { exit !(p > 55) }' || fail "the default leaves win only $pct% against zero leaves"
# opting out: ROOKERY_LEAVES=zero, and a table of the caller's choice
out=$(ROOKERY_LEAVES=zero "$bin" match --lexicon "$kwg" --a static --b static:leaves=zero --pairs 20 --seed 3)
echo "$out" | grep -q "A win% 50.00 " || fail "ROOKERY_LEAVES=zero still gave A leaves: $out"
echo "$out" | grep -q "default leaves" && fail "ROOKERY_LEAVES=zero still names default leaves: $out"
out=$(ROOKERY_LEAVES="$shipped" "$bin" match --lexicon "$kwg" --a static --b "static:leaves=$shipped" --pairs 20 --seed 3)
echo "$out" | grep -qF "A: static (default leaves $shipped)" || fail "ROOKERY_LEAVES=FILE is not the default: $out"
expect_error 2 "nope.klv2" env ROOKERY_LEAVES="$work/nope.klv2" "$bin" match --lexicon "$kwg" --a static --b static \
  --pairs 2
# the simulation player takes them too (its header line names them)
pos="15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 AEINRST/DGOQUVW 12/0 0"
"$bin" sim --lexicon "$kwg" --cgp "$pos" --candidates 3 --iterations 4 | grep -qF "leaves $beside" \
    || fail "sim does not use the default leaves"
  "$bin" sim --lexicon "$kwg" --cgp "$pos" --candidates 3 --iterations 4 --leaves zero | grep -q "leaves none" \
    || fail "sim --leaves zero still uses leaves"

# training from zero leaves is untouched by the default: the same generation
# with and without it
for v in default zero; do
  env_v=(); [ "$v" = zero ] && env_v=(ROOKERY_LEAVES=zero)
  env "${env_v[@]}" "$bin" train --set "lexicon.kwg=$kwg" --run "$work/$v" --set run.generations=1 \
    --set run.games_per_generation=12 --set run.progress_seconds=0 --set match.pairs=2 --set spv.schedule=off \
    --set nn.shards=no --set nn.train=no > "$work/$v.log" 2>&1 || { cat "$work/$v.log"; fail "train ($v)"; }
done
grep -q "initial = zero" "$work/default/config.ini" || fail "the test run did not start from zero leaves"
cmp -s "$work/default/gen-0001/leaves.klv2" "$work/zero/gen-0001/leaves.klv2" \
  || fail "training from leaves.initial = zero changes when default leaves exist"
echo "default_leaves: OK"
