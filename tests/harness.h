/*
 * The correctness harness: every registered algorithm, at every parameter
 * point the registry describes, against the MPI library's own collective
 * (called through PMPI), byte for byte, receive-buffer gaps included.
 *
 * Files: harness.c (options, the sweep, case checking), patterns.c (count
 * patterns and buffer layouts), datatypes.c (the datatype pairs), params.c
 * (parameter points from the registry descriptors), badinput.c (error
 * handling), leaks.c (communicator churn for LeakSanitizer / valgrind).
 */
#ifndef XCHG_TESTS_HARNESS_H
#define XCHG_TESTS_HARNESS_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "../src/core/registry.h"
#include "xchg.h"

/* ---- deterministic pseudo-random numbers ---------------------------------- */
uint64_t h_hash(uint64_t a, uint64_t b, uint64_t c, uint64_t d);
double h_unit(uint64_t a, uint64_t b, uint64_t c, uint64_t d); /* in (0, 1] */

/* ---- datatypes -------------------------------------------------------------- */
/* A send/receive datatype pair with the same type signature: `send_mult`
 * elements of `send` carry what one element of `recv` does. */
typedef struct test_type {
    const char *name;
    MPI_Datatype send, recv;
    int send_mult;
    int64_t size;             /* bytes of data in one receive element */
    MPI_Aint send_extent, recv_extent;
} test_type;

int types_create(test_type **types, int *count);
void types_free(test_type *types, int count);

/* ---- count patterns (alltoallv) -------------------------------------------- */
enum { PAT_UNIFORM, PAT_ZEROS, PAT_HOT_PEER, PAT_POWER_LAW, PAT_NORMAL, PAT_SPARSE,
       PAT_LARGE, NUM_PATTERNS };
extern const char *const pattern_names[NUM_PATTERNS];

/* Elements (of the receive type, `elem_size` bytes each) that `sender` sends
 * to `receiver`. With `symmetric`, count(s, r) == count(r, s) (MPI_IN_PLACE). */
int pattern_count(int pattern, uint64_t seed, int sender, int receiver, int size,
                  int64_t elem_size, int symmetric);

/* Displacement layouts: blocks in peer order without gaps, or in reverse
 * peer order with gaps between them. */
enum { DISPL_PACKED, DISPL_REVERSE_GAPS, NUM_DISPL };
extern const char *const displ_names[NUM_DISPL];

/* Fill displs (in units of the extent) for `counts`; returns the number of
 * extents the buffer must span. */
int64_t layout_displs(int mode, const int *counts, int size, int *displs);

/* Fill `n` bytes with a pattern that depends on (seed, rank, tag, offset). */
void fill_bytes(unsigned char *buf, size_t n, uint64_t seed, int rank, int tag);

/* ---- parameter points ------------------------------------------------------- */
typedef struct point_list {
    char (*text)[256];       /* full selection strings */
    int count;               /* points kept */
    int total;               /* points in the full cartesian product */
} point_list;

/* Points of `algo` at communicator size `size`; at most `cap` are kept (a
 * deterministic sample from `salt` when the product is larger; the default
 * point is always kept). */
int points_generate(const xchg_algorithm *algo, int size, int cap, uint64_t salt,
                    point_list *out);
void points_free(point_list *pl);

/* ---- results ---------------------------------------------------------------- */
typedef struct tally {
    long long passed, failed;
} tally;

/* Record one case on `comm`: `ok` is this rank's verdict; the case passes when
 * it passed on every rank. Counted once, by rank 0 of MPI_COMM_WORLD (which is
 * in every communicator the harness tests). Returns the agreed verdict. */
int record_case(MPI_Comm comm, int ok, tally *t);

/* Description of the current case, for failure messages. */
extern char current_case[1024];
int fail_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int is_world_root(void);

/* ---- test groups -------------------------------------------------------------- */
int badinput_run(MPI_Comm comm, const char *layout_name, tally *t);
/* Alltoallw (tests/alltoallw.c): its per-peer types, one case, bad input. */
int alltoallw_types_create(void);
void alltoallw_types_free(void);
int run_alltoallw(MPI_Comm comm, const char *selection, int pattern, int displ, int in_place,
                  int starts, uint64_t seed);
int alltoallw_badinput_run(MPI_Comm comm, const char *layout_name, tally *t);
/* From harness.c: check one call's result and what it used; start and
 * complete a persistent request (polling with XCHG_Test when `poll`). */
int harness_check_call(MPI_Comm comm, xchg_coll coll, int rc, const char *selection,
                       const unsigned char *got, const unsigned char *want, size_t n);
int harness_start_and_wait(XCHG_Request *req, int poll);
int bottom_run(MPI_Comm comm, const char *layout_name, tally *t);
int requests_run(MPI_Comm comm, const char *layout_name, tally *t);
int leaks_run(MPI_Comm world, int iterations, tally *t);

const char *coll_name(xchg_coll coll);

#endif
