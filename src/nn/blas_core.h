/*
 * blas_core.h - making sure OpenBLAS uses the vector kernels the CPU has.
 *
 * OpenBLAS (Debian builds it with DYNAMIC_ARCH) picks its kernels once, when
 * the library loads, from the CPU's family and model numbers. A CPU newer
 * than the OpenBLAS release, or a virtual machine that reports a generic
 * model ("Intel Xeon Processor"), falls back to the Prescott kernels (SSE3):
 * on the AVX-512 development machine of docs/performance.md that made the
 * sgemm 4-6x and the network's forward pass 2.4-3.4x slower than the SkylakeX
 * kernels it can run.
 *
 * The choice can only be changed by the environment variable
 * OPENBLAS_CORETYPE, read when the library loads, that is before main(). So
 * blas_core_fix() compares the core OpenBLAS chose with the best one the CPU
 * supports (by the CPU's feature flags, which the OS must enable too:
 * SkylakeX with AVX-512 F/BW/DQ/VL, else Haswell with AVX2 and FMA) and, if
 * OpenBLAS chose a lesser one, sets OPENBLAS_CORETYPE and executes the same
 * program again (/proc/self/exe, same arguments; before MPI_Init, so the
 * MPI launcher sees the same process). It does nothing when
 * OPENBLAS_CORETYPE is already set: that is also how a user keeps a choice
 * of their own (e.g. OPENBLAS_CORETYPE=Prescott to reproduce bytes made on
 * another machine, or under valgrind, which emulates neither AVX-512 nor
 * the re-execution).
 *
 * Kernels differ in their rounding, so a run's bytes depend on the core:
 * the same seed, config and core give the same bytes, whatever the ranks.
 */
#ifndef ROOKERY_NN_BLAS_CORE_H
#define ROOKERY_NN_BLAS_CORE_H

/* The core OpenBLAS uses ("SkylakeX", "Haswell", "Prescott", ...). */
const char *blas_core_name(void);

/* The best core this CPU supports that OpenBLAS has kernels for, or NULL
 * if nothing better than the generic ones (or not an x86-64 CPU). */
const char *blas_core_best(void);

/* Whether `core` (a name as blas_core_name gives) is at least as fast a
 * kernel family as `best` (a name blas_core_best gives). */
int blas_core_at_least(const char *core, const char *best);

/* Re-executes the program with OPENBLAS_CORETYPE = blas_core_best() if
 * OpenBLAS chose a lesser core and the variable is not set. Returns only
 * if nothing was to be done or the execution failed (then with a warning
 * on stderr, and the program goes on with the core it has). */
void blas_core_fix(char **argv);

#endif
