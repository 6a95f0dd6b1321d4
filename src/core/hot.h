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
 * argument arrays' frame) out of the entry point itself.
 */
#ifndef XCHG_CORE_HOT_H
#define XCHG_CORE_HOT_H

#if defined(__GNUC__)
#define XCHG_HOT __attribute__((hot))
#define XCHG_NORMAL_PATH __attribute__((noinline))
#else
#define XCHG_HOT
#define XCHG_NORMAL_PATH
#endif

#endif
