# Shared helpers of the MPI tests (sourced). Arguments of every test:
#   ROOKERY_BIN SOWPODS_KWG MPIEXEC
set -euo pipefail
bin="$1"; kwg="${2:-}"; mpiexec="$3"
source "$(dirname "${BASH_SOURCE[0]}")/../cli/lib.sh" # fail, missing
if [ -z "$kwg" ] || [ ! -f "$kwg" ]; then
  missing "SOWPODS.kwg not built; MPI training tests did not run"
fi
export ROOKERY_LEXICON="$kwg"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
# A rank waiting in a collective yields the core instead of spinning on it: ctest runs an mpirun
# test beside another test (tests/CMakeLists.txt), and a spinning rank took CPU from it
# (mpi_np_identity alone: 38.7 s of CPU spinning, 35.2 s yielding, 2026-12-02).
export OMPI_MCA_mpi_yield_when_idle=1
mpirun_np() { local np="$1"; shift; "$mpiexec" --allow-run-as-root --oversubscribe -np "$np" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# same_files DIR_A DIR_B GEN...: the snapshot files of those generations are byte-identical
# (every .klv2, .req, .spv and .h5 file: leaves, rack table, SPV table, shards, model), and both
# generations hold the same such files.
same_files() {
  local a="$1" b="$2" names; shift 2
  for g in "$@"; do
    names=$(cd "$a/gen-$g" && ls | grep -E '\.(klv2|req|spv|h5)$')
    [ "$names" = "$(cd "$b/gen-$g" && ls | grep -E '\.(klv2|req|spv|h5)$')" ] || fail "gen-$g: $a and $b hold different files"
    for f in $names; do
      cmp -s "$a/gen-$g/$f" "$b/gen-$g/$f" || fail "$a/gen-$g/$f and $b/gen-$g/$f differ"
    done
  done
}
