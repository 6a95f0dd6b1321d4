/*
 * Measured scratch of parlogna: for every communicator size Pc = 1..P (the
 * first Pc ranks of MPI_COMM_WORLD) and every radix r = 2..max(2, Pc), run an
 * alltoallv with non-uniform counts and check that
 * XCHG_Comm_get_scratch_peak(comm, "alltoallv") equals exactly the formula of
 * src/coll/alltoallv/parlogna.c:
 *   T        = B * S_max,  B = Pc - K - 1, K = #rounds (x, z) with z*r^x < Pc,
 *                          S_max = largest block (bytes) any rank sends
 *   metadata = Pc * 8 + M * (2*8 + 3*sizeof(int) + 2*sizeof(MPI_Request)),
 *              M = max over rounds (x, z) of #{1 <= i < Pc : digit_x(i) == z}
 * (nothing at all for Pc = 1). The result is also compared with MPI_Alltoallv.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

static int count_of(int s, int d) { return (s * 3 + d * 5) % 11 + (s == d); }

static long long expected_peak(int P, int r)
{
    if (P == 1) return 0;
    if (r > P) r = P;
    long long K = 0, M = 0, smax = 0;
    for (long long pw = 1; pw < P; pw *= r)
        for (int z = 1; z < r && z * pw < P; z++) {
            long long n = 0;
            for (long long i = 1; i < P; i++) n += (i / pw) % r == z;
            K++;
            if (n > M) M = n;
        }
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++)
            if (count_of(s, d) * (long long)sizeof(int) > smax) smax = count_of(s, d) * (long long)sizeof(int);
    long long B = P - K - 1;
    return B * smax + P * 8LL +
           M * (long long)(2 * 8 + 3 * sizeof(int) + 2 * sizeof(MPI_Request));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int world, wrank, bad = 0, cases = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (int Pc = 1; Pc <= world; Pc++) {
        MPI_Comm comm;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < Pc ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm == MPI_COMM_NULL) continue;
        int me = wrank;
        int *sc = malloc(Pc * sizeof(int)), *rc = malloc(Pc * sizeof(int));
        int *sd = malloc(Pc * sizeof(int)), *rd = malloc(Pc * sizeof(int));
        int stot = 0, rtot = 0;
        for (int p = 0; p < Pc; p++) {
            sc[p] = count_of(me, p), sd[p] = stot, stot += sc[p];
            rc[p] = count_of(p, me), rd[p] = rtot, rtot += rc[p];
        }
        int *sbuf = malloc((stot + 1) * sizeof(int)), *ref = calloc(rtot + 1, sizeof(int));
        int *got = calloc(rtot + 1, sizeof(int));
        for (int k = 0; k < stot; k++) sbuf[k] = me * 100000 + k;
        MPI_Alltoallv(sbuf, sc, sd, MPI_INT, ref, rc, rd, MPI_INT, comm);
        for (int r = 2; r <= (Pc > 2 ? Pc : 2); r++) {
            char sel[64];
            long long peak = -1, want = expected_peak(Pc, r);
            snprintf(sel, sizeof sel, "parlogna:radix=%d", r);
            memset(got, 0, (rtot + 1) * sizeof(int));
            XCHG_Comm_set_algorithm(comm, "alltoallv", sel);
            XCHG_Alltoallv(sbuf, sc, sd, MPI_INT, got, rc, rd, MPI_INT, comm);
            XCHG_Comm_get_scratch_peak(comm, "alltoallv", &peak);
            int wrong_data = memcmp(ref, got, rtot * sizeof(int)) != 0;
            if (peak != want || wrong_data) {
                bad++;
                fprintf(stderr, "FAIL rank %d P=%d r=%d: peak %lld, expected %lld%s\n", me, Pc, r,
                        peak, want, wrong_data ? ", wrong data" : "");
            } else if (me == 0) {
                printf("P=%2d r=%2d peak=%6lld bytes (= formula)\n", Pc, r, peak);
            }
            cases++;
        }
        free(sbuf); free(ref); free(got); free(sc); free(rc); free(sd); free(rd);
        MPI_Comm_free(&comm);
    }
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) printf("%s: %d (P, r) cases, %d failures\n", total ? "FAIL" : "OK", cases, total);
    if (wrank == 0) printf("%d passed, %d failed\n", cases - total, total);
    MPI_Finalize();
    return total != 0;
}
