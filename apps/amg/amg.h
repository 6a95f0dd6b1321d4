/*
 * What the files of xchg-amg share (apps/amg/README.md): the options, the
 * rank, fatal errors, memory, the test vector, and the matrix (amg_matrix.c:
 * the problem assembled through hypre and checked against its generator).
 * xchg_amg.c walks the hierarchy and times the exchanges.
 */
#ifndef XCHG_AMG_H
#define XCHG_AMG_H

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* ffs, used by hypre's headers */

#include <mpi.h>

#include "HYPRE.h"
#include "HYPRE_IJ_mv.h"
#include "HYPRE_parcsr_ls.h"
#include "_hypre_parcsr_ls.h"
#include "_hypre_parcsr_mv.h"

#include "xchg.h"

extern int rank, nranks; /* of MPI_COMM_WORLD (xchg_amg.c) */

#define DIE(...)                                                           \
    do {                                                                   \
        fprintf(stderr, "xchg-amg: rank %d: ", rank);                      \
        fprintf(stderr, __VA_ARGS__);                                      \
        fprintf(stderr, "\n");                                             \
        MPI_Abort(MPI_COMM_WORLD, 3);                                      \
    } while (0)

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) DIE("out of memory (%zu bytes)", n);
    return p;
}

/* The test vector: exact to compare, not linear in g (a permutation shows). */
static inline double xval(int64_t g) { return sin((double)g) + 2.0; }

typedef struct options {
    long n;
    double eps, theta;
    int px, py;
    char algos[1024];
    int iters, warmup, reps;
    int init; /* 0 auto, 1 plain, 2 ext */
    double strong;
    int coarsen, interp, pmax, agg_levels, max_levels;
    int solve, header, inject, graph;
    const char *csv;
} options;

/* amg_options.c: the options of argv (the defaults where not given); the
 * usage and exit on a bad one. */
void parse_options(int argc, char **argv, options *o);

/* amg_matrix.c: the matrix assembled through hypre's IJ interface (*ij
 * owns it), a vector on A's row partition (fill: x[g] = xval(g), else 0),
 * hypre's own y = A x of that vector, and the check against
 * GenerateRotate7pt's matrix (a matvec; fatal when they differ). */
HYPRE_ParCSRMatrix assemble(const options *o, HYPRE_IJMatrix *ij);
hypre_ParVector *vector_on(hypre_ParCSRMatrix *A, int fill);
double *hypre_spmv(hypre_ParCSRMatrix *A);
void check_generator(const options *o, hypre_ParCSRMatrix *A);

/* ---- amg_pattern.c: regions and one level's exchange -------------------- */

/* One level's halo exchange from hypre's comm package of A_l: neighbours,
 * counts, displacements, global indices, buffers. */
typedef struct pattern {
    int nsend, nrecv;
    int *send_procs, *recv_procs;
    int *sendcounts, *sdispls, *recvcounts, *rdispls;
    int64_t *sindices, *rindices;
    double *sendbuf, *recvbuf, *x_local;
    int nsendvals, nrecvvals, local_rows;
    int64_t *col_map; /* global index of each halo value */
    int64_t sindices_first; /* the global index of local row 0 */
} pattern;

typedef struct stats {
    long long inter_msgs, intra_msgs, inter_bytes, intra_bytes;
} stats;

/* region_of[r] for every rank: XCHG_VIRTUAL_NODES (sizes, repeated, the last
 * cut short; block or cyclic placement) or the shared-memory nodes; a label. */
void regions_build(int *region_of, char *label, size_t labellen);
void pattern_build(hypre_ParCSRMatrix *A, pattern *pt);
void pattern_free(pattern *pt);
/* What this rank sends per start between and inside regions. */
stats pattern_stats(const pattern *pt, const int *region_of);
/* The most bytes one ordered pair of regions exchanges: every value, and
 * each value once per destination region. */
void region_pair_bytes(const pattern *pt, const int *region_of, int nregions,
                       long long *all_max, long long *unique_max);
/* Halo values and the SpMV against hypre's; the number of bad values. */
long check_exchange(hypre_ParCSRMatrix *A, const pattern *pt, const double *yref);

#endif

