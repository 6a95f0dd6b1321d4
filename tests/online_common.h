/*
 * The helpers of the online selection tests (tests/online_explore.c: how a
 * signature is decided; tests/online.c: what follows a decision, and
 * persistence): every call checked byte for byte against PMPI, the
 * algorithm used checked the same on every rank, the exploration's counts
 * read from the library (src/select/online.h). Code in tests/online_common.c.
 */
#ifndef XCHG_TESTS_ONLINE_COMMON_H
#define XCHG_TESTS_ONLINE_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agreed_check.h" /* check, check_same_choice_on, world_rank, NAME_LEN */
#include "core/context.h"
#include "select/online.h"
#include "xchg.h"

#define CHECK_MPI(call)                                                         \
    do {                                                                        \
        if ((call) != MPI_SUCCESS) {                                            \
            fprintf(stderr, "FAIL online: %s failed\n", #call);                 \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

extern int dense; /* alltoallv without empty blocks (a sparse one is not persisted) */
/* one_call: the nonblocking form (XCHG_I..., XCHG_Wait), and whether a task
 * was outstanding after its start (the start did not post at once) */
extern int nonblocking, started_with_task;

/* One call of `coll` (blocking, or the nonblocking form, started before
 * PMPI's and waited for after it) with blocks of `count` ints, checked
 * against PMPI.
 * alltoallv, alltoallw: rank-dependent counts up to count, a zero among them
 * unless `dense`; alltoallw's type per peer is MPI_INT or a pair of ints by
 * the parity of the two ranks (so blocks of the odd pairs are twice as
 * large), byte displacements. allgatherv: contributions count - p % 3 ints
 * (rank 3, 7, ... none unless `dense`), a gap of one int between blocks. */
int one_call(MPI_Comm comm, const char *coll, int count, int call, const char *what);

/* Enough calls to decide a signature: 2 on the model, then up to 6
 * candidates of one warm-up and up to 10 samples each (at the forced times
 * of at least 20 us used here: 5, and 10 where they spread, in visits of 1,
 * 2, 2, 2, 2 and 1 samples, each a timed run after a switching call), one
 * more whose agreement carries the last time. */
#define EXPLORE_CALLS (2 + 6 * (1 + 10 + 6) + 1)

/* `calls` calls, each checked; the result of all of them as one check. */
void calls_of(MPI_Comm comm, const char *coll, int count, int calls, const char *what);

/* Calls as calls_of, until one more signature of comm is decided than after
 * the first call (a fresh signature's exploration ended), EXPLORE_CALLS at
 * most. Decisions follow agreed times only, so every rank stops at the same
 * call; stopping there spares the calls a decided signature would make
 * (MPICH's ranks poll busily: on CI's 2 cores they made its online tests
 * take 1.4x as long with EXPLORE_CALLS each time). */
void calls_until_decided(MPI_Comm comm, const char *coll, int count, const char *what);

/* The online state of comm (xchg_online_counts). */
void counts_of(MPI_Comm comm, int *decided, int *exploring, unsigned long *explored);

/* What the last explorations on comm did (xchg_online_explore_stats). */
typedef struct explore_stats {
    int candidates, dropped, samples, switches;
} explore_stats;

explore_stats stats_of(MPI_Comm comm);

/* The same value on every rank (the state of online selection must be). */
void same_everywhere(long v, const char *what);

#define NCOLLS 5
extern const char *const colls[NCOLLS];

/* tests/online_init.c: online selection at a persistent neighbourhood init;
 * tests/online_init_dense.c: at a dense collective's. */
void persistent_neighbor_init(void);
void persistent_dense_init(void);

/* tests/online_nonblocking.c: what nonblocking calls choose. */
void nonblocking_choice(void);

/* tests/online_neighbor_paths.c: what neighbourhood calls choose and their
 * fast paths (called by nonblocking_choice). */
void nonblocking_neighbor_choice(void);

/* MPI_Init, world_rank, no XCHG_<COLL> selection from the environment. */
void online_begin(int *argc, char ***argv);

/* Rank 0 prints "N passed, N failed"; MPI_Finalize. Returns the exit status. */
int online_end(void);

#endif
