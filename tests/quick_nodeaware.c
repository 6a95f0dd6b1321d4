/*
 * Quick check of the node-aware family against MPI's own MPI_Alltoall and
 * MPI_Alltoallv (until the shared harness covers it): every algorithm, every
 * inner algorithm, leaders/groups in {1, 2, 4, P}, on whatever virtual node
 * layout XCHG_VIRTUAL_NODES / XCHG_VIRTUAL_PLACEMENT give. Cases: contiguous
 * ints, zero counts, a non-contiguous vector type, MPI_IN_PLACE, power-law
 * alltoallv counts with gaps between blocks. Whole receive buffers (gaps
 * included) must equal MPI's.
 * Usage: quick_nodeaware [algorithm-name-filter]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "xchg.h"

static int rank, size, failures;

static int count_of(int s, int d, int salt)
{
    /* power-law-ish with zeros: large for a few pairs */
    unsigned h = (unsigned)(s * 7919 + d * 104729 + salt * 31);
    h ^= h >> 7;
    int c = (int)(h % 11);
    if (c < 3) return 0;
    return (c > 9) ? 64 / (1 + d % 4) : c - 2;
}

static void fill(int *buf, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++) buf[i] = rank * 1000003 + (int)i * 7 + salt;
}

static void check(const char *what, const char *sel, const int *got, const int *want, size_t n, int rc)
{
    int bad = rc != MPI_SUCCESS;
    for (size_t i = 0; i < n && !bad; i++) bad = got[i] != want[i];
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        failures++;
        if (bad) fprintf(stderr, "FAIL rank %d P=%d %s [%s] rc=%d %s\n", rank, size, what, sel, rc,
                         rc ? XCHG_Last_error() : "");
    }
}

static void run_alltoall(const char *sel, MPI_Datatype type, int count, int in_place, const char *what)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    size_t n = (size_t)(ext / (MPI_Aint)sizeof(int)) * (size_t)count * size + 4;
    int *sb = malloc(n * sizeof(int)), *rb = malloc(n * sizeof(int)), *ref = malloc(n * sizeof(int));
    fill(sb, n, 1);
    fill(rb, n, 2);
    fill(ref, n, 2);
    int rc;
    if (in_place) {
        MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ref, count, type, MPI_COMM_WORLD);
        rc = XCHG_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, count, type, MPI_COMM_WORLD);
    } else {
        MPI_Alltoall(sb, count, type, ref, count, type, MPI_COMM_WORLD);
        rc = XCHG_Alltoall(sb, count, type, rb, count, type, MPI_COMM_WORLD);
    }
    check(what, sel, rb, ref, n, rc);
    free(sb), free(rb), free(ref);
}

static void run_alltoallv(const char *sel, MPI_Datatype type, int salt, int in_place, const char *what)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(type, &lb, &ext);
    int *sc = malloc(4 * size * sizeof(int)), *sd = sc + size, *rcn = sc + 2 * size, *rd = sc + 3 * size;
    int stot = 0, rtot = 0;
    for (int p = 0; p < size; p++) {
        sc[p] = count_of(rank, p, salt);
        rcn[p] = count_of(p, rank, salt);
        if (in_place) sc[p] = rcn[p] = count_of(rank < p ? rank : p, rank < p ? p : rank, salt);
    }
    for (int p = size - 1; p >= 0; p--) { sd[p] = stot; stot += sc[p] + 1; } /* reversed, gaps */
    for (int p = 0; p < size; p++) { rd[p] = rtot; rtot += rcn[p] + 2; }
    size_t per = (size_t)(ext / (MPI_Aint)sizeof(int));
    size_t ns = per * (size_t)stot + 4, nr = per * (size_t)rtot + 4;
    int *sb = malloc(ns * sizeof(int)), *rb = malloc(nr * sizeof(int)), *ref = malloc(nr * sizeof(int));
    fill(sb, ns, 3);
    fill(rb, nr, 4);
    fill(ref, nr, 4);
    int rc;
    if (in_place) {
        MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, ref, rcn, rd, type, MPI_COMM_WORLD);
        rc = XCHG_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, rb, rcn, rd, type, MPI_COMM_WORLD);
    } else {
        MPI_Alltoallv(sb, sc, sd, type, ref, rcn, rd, type, MPI_COMM_WORLD);
        rc = XCHG_Alltoallv(sb, sc, sd, type, rb, rcn, rd, type, MPI_COMM_WORLD);
    }
    check(what, sel, rb, ref, nr, rc);
    free(sb), free(rb), free(ref), free(sc);
}

/* The last call's phases: at least one, all named from the documented set,
 * and "gather" on every rank for the algorithms with leaders. */
static void check_phases(const char *sel, int with_leaders)
{
    const char *names[8];
    double seconds[8];
    int n = 0, bad = XCHG_Comm_get_phase_times(MPI_COMM_WORLD, 8, names, seconds, &n) != MPI_SUCCESS;
    int gather = 0;
    bad |= n == 0;
    for (int i = 0; i < n; i++) {
        int known = 0;
        static const char *ok[] = {"gather", "inter-node", "intra-node", "scatter", "repack"};
        for (int k = 0; k < 5; k++) known |= strcmp(names[i], ok[k]) == 0;
        bad |= !known || seconds[i] < 0;
        gather |= strcmp(names[i], "gather") == 0;
    }
    if (with_leaders && !gather) bad = 1;
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        failures++;
        if (bad) fprintf(stderr, "FAIL rank %d phase times of [%s]: %d phases\n", rank, sel, n);
    }
}

/* The cases every selection runs: int, zero, vector type and in-place for
 * alltoall (c = 0), power-law, vector and in-place for alltoallv; returns
 * how many. */
static int run_cases(const char *sel, int c, MPI_Datatype vecr)
{
    if (c == 0) {
        run_alltoall(sel, MPI_INT, 3, 0, "alltoall int x3");
        run_alltoall(sel, MPI_INT, 0, 0, "alltoall zero");
        run_alltoall(sel, vecr, 2, 0, "alltoall vector");
        run_alltoall(sel, MPI_INT, 2, 1, "alltoall in-place");
        return 4;
    }
    run_alltoallv(sel, MPI_INT, 1, 0, "alltoallv power-law");
    run_alltoallv(sel, vecr, 2, 0, "alltoallv vector");
    run_alltoallv(sel, MPI_INT, 3, 1, "alltoallv in-place");
    return 3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *filter = argc > 1 ? argv[1] : "";
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec); /* 2 ints with a gap of 2, extent 4 ints */
    MPI_Datatype vecr;
    MPI_Type_create_resized(vec, 0, 5 * sizeof(int), &vecr); /* and a hole at the end */
    MPI_Type_commit(&vecr);
    static const char *algos[] = {"hierarchical", "multileader", "node_aware", "locality_aware",
                                  "multileader_node_aware"};
    static const char *inners[] = {"pairwise", "nonblocking", "scattered", "linear",
                                   "multipair_blocking", "waitany", "testany", "bruck"};
    char ks[6][16] = {"1", "2", "4", "", "numa", "socket"};
    snprintf(ks[3], sizeof ks[3], "%d", size);
    int tests = 0;
    for (int c = 0; c < 2; c++) {
        const char *coll = c ? "alltoallv" : "alltoall";
        for (int ai = 0; ai < 5; ai++) {
            if (!strstr(algos[ai], filter)) continue;
            const char *pname = ai == 1 || ai == 4 ? "leaders" : ai == 3 ? "groups" : NULL;
            for (int ii = 0; ii < 8 - c; ii++)
                for (int ki = 0; ki < (!pname ? 1 : ai == 3 ? 6 : 4); ki++) {
                    if (pname && ki < 4 && atoi(ks[ki]) > size) continue;
                    char sel[128];
                    if (pname) snprintf(sel, sizeof sel, "%s:%s=%s,inner=%s", algos[ai], pname, ks[ki], inners[ii]);
                    else snprintf(sel, sizeof sel, "%s:inner=%s", algos[ai], inners[ii]);
                    int rc = XCHG_Comm_set_algorithm(MPI_COMM_WORLD, coll, sel);
                    if (rc != MPI_SUCCESS) { fprintf(stderr, "set %s: %s\n", sel, XCHG_Last_error()); failures++; continue; }
                    tests += run_cases(sel, c, vecr);
                    if (c == 0) check_phases(sel, ai == 0 || ai == 1 || ai == 4), tests++;
                }
        }
    }
    /* The overlapped exchanges: the same cases; they have no inner exchange
     * and report no phases (their phases overlap). */
    static const char *const overlapped[] = {
        "node_aware_overlap", "node_aware_overlap:batches=1", "node_aware_overlap:batches=2",
        "locality_aware_overlap:groups=2", "locality_aware_overlap:groups=2,batches=1",
        "locality_aware_overlap:groups=3,batches=2", "multileader_overlap:leaders=1,chunks=1",
        "multileader_overlap:leaders=1,chunks=3", "multileader_overlap:leaders=2,chunks=1",
        "multileader_overlap:leaders=2,chunks=8"};
    for (int o = 0; o < (int)(sizeof overlapped / sizeof overlapped[0]); o++)
        for (int c = 0; c < 2 && strstr(overlapped[o], filter); c++) {
            const char *sel = overlapped[o];
            if (XCHG_Comm_set_algorithm(MPI_COMM_WORLD, c ? "alltoallv" : "alltoall", sel) != MPI_SUCCESS) {
                fprintf(stderr, "set %s: %s\n", sel, XCHG_Last_error());
                failures++;
            } else {
                tests += run_cases(sel, c, vecr);
            }
        }
    /* A communicator that is freed again: its context and cached
     * sub-communicators (and theirs) go with it. */
    for (int round = 0; round < 2; round++) {
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
        int hr, hs;
        MPI_Comm_rank(half, &hr);
        MPI_Comm_size(half, &hs);
        int *sb = malloc(sizeof(int) * 3 * hs), *rb = malloc(sizeof(int) * 3 * hs),
            *ref = malloc(sizeof(int) * 3 * hs);
        for (int i = 0; i < 3 * hs; i++) sb[i] = hr * 100 + i, rb[i] = ref[i] = -1;
        XCHG_Comm_set_algorithm(half, "alltoall", round ? "multileader_node_aware:leaders=2,inner=bruck"
                                                        : "locality_aware:groups=2,inner=waitany");
        int rc = XCHG_Alltoall(sb, 3, MPI_INT, rb, 3, MPI_INT, half);
        MPI_Alltoall(sb, 3, MPI_INT, ref, 3, MPI_INT, half);
        check("split communicator", round ? "multileader_node_aware" : "locality_aware", rb, ref,
              (size_t)(3 * hs), rc);
        MPI_Comm_free(&half);
        free(sb), free(rb), free(ref);
        tests++;
    }
    if (rank == 0) printf("P=%d nodes=%s placement=%s: %d tests, %d failures\n", size,
                          getenv("XCHG_VIRTUAL_NODES") ? getenv("XCHG_VIRTUAL_NODES") : "(real)",
                          getenv("XCHG_VIRTUAL_PLACEMENT") ? getenv("XCHG_VIRTUAL_PLACEMENT") : "block",
                          tests, failures);
    MPI_Type_free(&vecr);
    MPI_Type_free(&vec);
    MPI_Finalize();
    return failures != 0;
}
