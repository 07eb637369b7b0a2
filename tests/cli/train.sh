#!/usr/bin/env bash
# rookery train / match without mpirun: usage, config errors, the Slurm/PMI
# guard, and a one-process run.
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
grep -- "--signal=B:USR1@300" >/dev/null "$jobs/slurm/train.sbatch" || fail "sbatch without the USR1 warning"
"$bin" match --help | grep "SPEC" >/dev/null || fail "match --help"
"$bin" train --print-default-config > "$work/default.ini"
grep "games_per_generation" >/dev/null "$work/default.ini" || fail "--print-default-config"

printf '[run]\ngenerations = zero\n' > "$work/bad.ini"
expect_exit 2 "bad.ini:2" "$bin" train --config "$work/bad.ini" --run "$work/r0"
expect_exit 2 "unknown key run.nope" "$bin" train --run "$work/r0" --set run.nope=1
expect_exit 2 "missing.ini" "$bin" train --config "$work/missing.ini" --run "$work/r0"
[ ! -e "$work/r0" ] || fail "a run directory was created despite a config error"
expect_exit 2 "SLURM_NTASKS" env SLURM_NTASKS=4 "$bin" train --run "$work/r0"
expect_exit 2 "pairs" "$bin" match --a static --b static

if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  echo "SKIPPED: SOWPODS.kwg not built; no training run"
  exit 0
fi
export ROOKERY_LEXICON="$kwg"
expect_exit 2 "unknown kind" "$bin" match --a sim --b static --pairs 1
expect_exit 2 "nope.klv2" "$bin" match --a static:leaves=/nope.klv2 --b static --pairs 1
# one process, no mpirun (MPI singleton)
"$bin" train --run "$work/r1" --set run.games_per_generation=20 --set run.generations=1 --set match.pairs=2 \
  > "$work/log" 2>&1 \
  || { cat "$work/log"; fail "one-process run"; }
[ "$(cat "$work/r1/LATEST")" = "gen-0001" ] || fail "LATEST after a one-process run"
"$bin" train --config "$jobs/example.ini" --run "$work/r2" --set run.games_per_generation=10 \
  --set run.generations=1 --set match.pairs=0 > "$work/log2" 2>&1 || { cat "$work/log2"; fail "jobs/example.ini does not load"; }
"$bin" train --run "$work/r1" --set run.generations=1 | grep "nothing to do" >/dev/null || fail "rerun of a finished run"
# a malformed LATEST is reported, not overwritten
echo garbage > "$work/r1/LATEST"
expect_exit 2 "LATEST" "$bin" train --run "$work/r1" --set run.generations=2
out=$("$bin" match --a static:leaves=zero --b static --pairs 3)
echo "$out" | grep "pairs 3, games 6" >/dev/null || fail "match output: $out"
echo "train.sh: all checks passed"
