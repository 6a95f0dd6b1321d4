/*
 * Quick correctness check of parlogna / parlinna_coalesced / parlinna_staggered
 * against the MPI library's own MPI_Alltoallv (until the shared harness sweeps
 * them). Usage: test_parlogna_check NUM_NODES [selection ...]
 * Without selections it sweeps radix in {2,3,4,ceil(sqrt P),P-1,P} and, for
 * the ParLinNa variants, batch in {1,2,N-1}. Every case runs the reference and
 * xchg from the same initial receive buffer (a fill pattern) and compares the
 * whole buffer, holes included, over count patterns (uniform, zeros, one hot
 * peer, power-law, 64 KiB+ blocks), datatype pairs (int; vector; resized with
 * holes; vector -> resized) and MPI_IN_PLACE (symmetric counts).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

enum { UNIFORM, ZEROS, HOT, POWERLAW, LARGE, NUM_PATTERNS };
static const char *pattern_names[] = {"uniform", "zeros", "hot", "powerlaw", "large"};

/* Elements from rank s to rank d. */
static int count_of(int pattern, int s, int d, int P, int symmetric)
{
    if (symmetric && s > d) { int t = s; s = d; d = t; }
    switch (pattern) {
    case UNIFORM: return 3;
    case ZEROS: return (s + 2 * d) % 3 == 0 ? 0 : 1 + (s * 7 + d) % 5;
    case HOT: return d == P / 2 ? 300 : (s + d) % 2;
    case POWERLAW: return (int)(2000.0 / pow(1.0 + (s * 31 + d * 17) % (2 * P + 1), 1.6));
    default: return 16384 + (s * 5 + d * 3) % 9; /* elements of >= 4 bytes: 64 KiB+ */
    }
}

static int run_case(const char *sel, int pattern, int types, int in_place, MPI_Comm comm,
                    int *cases)
{
    int P, me;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &P);
    MPI_Datatype vec, resized, stype, rtype;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec);          /* 2 ints, extent 16, hole inside */
    MPI_Type_contiguous(2, MPI_INT, &resized);
    MPI_Datatype tmp = resized;
    MPI_Type_create_resized(tmp, 0, 20, &resized);    /* 2 ints, extent 20: hole after */
    MPI_Type_free(&tmp);
    MPI_Type_commit(&vec);
    MPI_Type_commit(&resized);
    int ints_per_elem = types == 0 ? 1 : 2;
    stype = types == 0 ? MPI_INT : types == 2 ? resized : vec;
    rtype = types == 0 ? MPI_INT : types == 1 ? vec : resized;
    MPI_Aint lb, sext, rext;
    MPI_Type_get_extent(stype, &lb, &sext);
    MPI_Type_get_extent(rtype, &lb, &rext);

    int sym = in_place;
    int *scount = malloc(P * sizeof(int)), *rcount = malloc(P * sizeof(int));
    int *sdisp = malloc(P * sizeof(int)), *rdisp = malloc(P * sizeof(int));
    long stotal = 0, rtotal = 0;
    /* Send blocks in reverse peer order, receive blocks with a gap element. */
    for (int p = P - 1; p >= 0; p--) {
        scount[p] = count_of(pattern, me, p, P, sym);
        sdisp[p] = (int)stotal;
        stotal += scount[p] + 1;
    }
    for (int p = 0; p < P; p++) {
        rcount[p] = count_of(pattern, p, me, P, sym);
        rdisp[p] = (int)rtotal;
        rtotal += rcount[p] + 1;
    }
    if (in_place) {
        for (int p = 0; p < P; p++) scount[p] = rcount[p], sdisp[p] = rdisp[p];
        stotal = rtotal;
        stype = rtype;
        sext = rext;
    }
    size_t sbytes = (size_t)stotal * sext + 64, rbytes = (size_t)rtotal * rext + 64;
    int *sbuf = malloc(sbytes), *ref = malloc(rbytes), *got = malloc(rbytes);
    for (size_t k = 0; k < sbytes / 4; k++) sbuf[k] = (int)(me * 1000003u + k * 7u);
    for (size_t k = 0; k < rbytes / 4; k++) ref[k] = got[k] = (int)(0x5a5a0000u + k + me);
    if (in_place) {
        memcpy(ref, sbuf, rbytes < sbytes ? rbytes : sbytes);
        memcpy(got, ref, rbytes);
    }
    (void)ints_per_elem;
    int rc1 = MPI_Alltoallv(in_place ? MPI_IN_PLACE : sbuf, scount, sdisp, stype, ref, rcount,
                            rdisp, rtype, comm);
    int rc2 = XCHG_Comm_set_algorithm(comm, "alltoallv", sel);
    if (rc2 == MPI_SUCCESS)
        rc2 = XCHG_Alltoallv(in_place ? MPI_IN_PLACE : sbuf, scount, sdisp, stype, got, rcount,
                             rdisp, rtype, comm);
    int bad = rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS || memcmp(ref, got, rbytes) != 0;
    if (bad) {
        size_t k = 0;
        while (k < rbytes / 4 && ref[k] == got[k]) k++;
        fprintf(stderr, "FAIL rank %d: %s pattern=%s types=%d in_place=%d rc=%d/%d (%s) "
                "first diff at int %zu of %zu\n", me, sel, pattern_names[pattern], types,
                in_place, rc1, rc2, XCHG_Last_error(), k, rbytes / 4);
    }
    (*cases)++;
    free(sbuf); free(ref); free(got);
    free(scount); free(rcount); free(sdisp); free(rdisp);
    MPI_Type_free(&vec);
    MPI_Type_free(&resized);
    return bad;
}

static int check_selection(const char *sel, MPI_Comm comm, int *cases)
{
    int bad = 0;
    for (int pattern = 0; pattern < NUM_PATTERNS; pattern++)
        for (int types = 0; types < 4; types++)
            for (int in_place = 0; in_place < 2; in_place++) {
                if (in_place && types == 3) continue; /* one type only in place */
                if (pattern == LARGE && types != 0 && types != 3) continue;
                bad += run_case(sel, pattern, types, in_place, comm, cases);
            }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int P, me, cases = 0, bad = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int nodes = argc > 1 ? atoi(argv[1]) : 1;
    const char *mode = argc > 2 ? argv[2] : "all";
    int sweep = !strcmp(mode, "all") || !strcmp(mode, "logna") || !strcmp(mode, "linna");
    int do_logna = strcmp(mode, "linna") != 0, do_linna = strcmp(mode, "logna") != 0;
    if (!sweep) {
        for (int a = 2; a < argc; a++) bad += check_selection(argv[a], MPI_COMM_WORLD, &cases);
    } else {
        int root = (int)ceil(sqrt((double)P));
        int radices[] = {2, 3, 4, root, P - 1, P};
        int batches[] = {1, 2, nodes - 1 > 0 ? nodes - 1 : 1};
        char sel[128];
        for (int k = 0; k < 6; k++) {
            int r = radices[k];
            int seen = 0;
            for (int q = 0; q < k; q++) seen |= radices[q] == r;
            if (r < 2 || r > (P > 2 ? P : 2) || seen) continue;
            snprintf(sel, sizeof sel, "parlogna:radix=%d", r);
            if (do_logna) bad += check_selection(sel, MPI_COMM_WORLD, &cases);
            for (int b = 0; b < 3 && do_linna; b++) {
                if (b == 2 && batches[2] <= 2) continue;
                snprintf(sel, sizeof sel, "parlinna_coalesced:radix=%d,batch=%d", r, batches[b]);
                bad += check_selection(sel, MPI_COMM_WORLD, &cases);
                snprintf(sel, sizeof sel, "parlinna_staggered:radix=%d,batch=%d", r, batches[b]);
                bad += check_selection(sel, MPI_COMM_WORLD, &cases);
            }
        }
    }
    int total_bad = 0;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s: P=%d nodes=%d, %d cases, %d failures\n", total_bad ? "FAIL" : "OK", P, nodes,
               cases, total_bad);
    MPI_Finalize();
    return total_bad != 0;
}
