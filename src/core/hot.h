/*
 * Code placement for the path of a decided call (src/select/online_fast.c).
 *
 * In a program that computes between its collectives, the path's first
 * cost is not its instructions but the cache lines and pages it touches
 * that the computation evicted. XCHG_HOT puts the functions of that path
 * in one place (GCC and Clang: .text.hot, grouped by the linker), so they
 * share pages and lines; docs/results/selection/online/path-cold.c
 * measures it (+0.6-0.8 us around a cold 64 B MPI_Alltoall before it,
 * about +0.45 after, +0.2-0.8 with the one-line record of online_fast.c;
 * the sweep's timings vary that much). XCHG_NORMAL_PATH keeps an entry point's normal path (its
 * argument arrays' frame) out of the entry point itself; XCHG_INLINE_PATH
 * puts the fast path's front into it (online_fast.h), where the compiler
 * would otherwise keep it a function of its own.
 */
#ifndef XCHG_CORE_HOT_H
#define XCHG_CORE_HOT_H

#include <stdatomic.h>

/* The two process-wide counters every call reads, in one cache line (two
 * separate globals were two lines, each a miss where another process ran
 * on the core in between: docs/results/selection/online/goal/): */
typedef struct xchg_call_counters {
    _Alignas(64) atomic_int tasks_not_done; /* tasks not yet done (task.c; task.h) */
    atomic_uint context_generation;         /* one more whenever a context goes away
                                               (context.c: the lookup's cache) */
} xchg_call_counters;
extern xchg_call_counters xchg_counters; /* task.c */

#if defined(__GNUC__)
#define XCHG_HOT __attribute__((hot))
#define XCHG_NORMAL_PATH __attribute__((noinline))
#define XCHG_INLINE_PATH __attribute__((always_inline)) inline
#else
#define XCHG_HOT
#define XCHG_NORMAL_PATH
#define XCHG_INLINE_PATH inline
#endif

#endif
