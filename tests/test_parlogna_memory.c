/*
 * ParLogNa's measured scratch and message schedule. For every communicator
 * size Pc = 1..P (the first Pc ranks of MPI_COMM_WORLD) and every radix
 * r = 2..max(2, Pc), in both bounce modes, run an alltoallv, compare it with
 * MPI_Alltoallv, and check against src/coll/alltoallv/parlogna.c:
 *
 * Scratch, non-uniform counts (XCHG_Comm_get_scratch_peak):
 *   bounce=wave: exactly T + metadata, where
 *     T        = B * S_max,  B = Pc - K - 1, K = #rounds (x, z) with z*r^x < Pc,
 *                            S_max = largest block (bytes) any rank sends
 *     metadata = Pc * 8 + M * (2*8 + 2*24 + sizeof(MPI_Aint) + 4*sizeof(int)),
 *                M = max over rounds (x, z) of #{1 <= i < Pc : digit_x(i) == z}
 *                (24 = one bundle block: pointer, int64 size, int peer, padded)
 *     (nothing at all for Pc = 1);
 *   bounce=copy: at least that, at most M * S_max more (the copied blocks).
 *
 * Messages, uniform counts (every block non-empty), counted by wrapping
 * PMPI_Isend (data) and PMPI_Sendrecv (metadata), which xchg calls:
 *   data: bounce=copy exactly K, one per round; bounce=wave K plus the bounce
 *         waves, ceil(bounced / free slots) per round, from an independent
 *         replay of the schedule below;
 *   metadata: one per round that forwards something (an index with a
 *         non-zero digit above x).
 * Under SimGrid SMPI (no PMPI wrapping) only the scratch is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

#ifndef SMPI_H
/* xchg calls the PMPI_ entry points (src/core/pmpi.h), so the counters
 * interpose PMPI_Isend and PMPI_Sendrecv themselves and forward to the MPI
 * library's definitions, found with dlsym(RTLD_NEXT). */
#include <dlfcn.h>

static long long isend_calls, sendrecv_calls;

typedef int (*isend_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
typedef int (*sendrecv_fn)(const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,
                           int, int, MPI_Comm, MPI_Status *);

static void *next_symbol(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        fprintf(stderr, "test_parlogna_memory: %s not found after this program\n", name);
        abort();
    }
    return fn;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *req)
{
    static isend_fn real;
    if (!real) real = (isend_fn)next_symbol("PMPI_Isend");
    isend_calls++;
    return real(buf, count, type, dest, tag, comm, req);
}

int PMPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                  void *rbuf, int rcount, MPI_Datatype rtype, int source, int rtag,
                  MPI_Comm comm, MPI_Status *status)
{
    static sendrecv_fn real;
    if (!real) real = (sendrecv_fn)next_symbol("PMPI_Sendrecv");
    sendrecv_calls++;
    return real(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status);
}
#endif
static int count_of(int s, int d) { return (s * 3 + d * 5) % 11 + (s == d); }

static int digit(long long i, long long pw, int r) { return (int)((i / pw) % r); }

static int is_direct(long long i, int r)
{
    while (i % r == 0) i /= r;
    return i < r;
}

typedef struct schedule {
    long long K, M, data_wave, meta;
} schedule;

/* Rounds, largest round, and messages per call (uniform non-empty blocks). */
static schedule replay(int P, int r)
{
    schedule s = {0, 0, 0, 0};
    char *held = calloc(P, 1);
    for (long long pw = 1; pw < P; pw *= r)
        for (int z = 1; z < r && z * pw < P; z++) {
            long long n = 0, bounced = 0, free_slots = 0, forwards = 0;
            for (long long i = 1; i < P; i++) {
                if (digit(i, pw, r) != z) continue;
                n++;
                forwards |= i >= pw * r;
                if (i % pw != 0 && i >= pw * r)
                    bounced++;
                else
                    held[i] = i >= pw * r; /* first wave: into T or delivered */
            }
            for (long long j = 1; j < P; j++) free_slots += !held[j] && !is_direct(j, r);
            s.K++;
            if (n > s.M) s.M = n;
            s.meta += forwards;
            s.data_wave += 1 + (bounced ? (bounced + free_slots - 1) / free_slots : 0);
        }
    free(held);
    return s;
}

static long long wave_peak(int P, int r, long long smax)
{
    if (P == 1) return 0;
    schedule s = replay(P, r);
    long long B = P - s.K - 1;
    return B * smax + P * 8LL +
           s.M * (long long)(2 * 8 + 2 * 24 + sizeof(MPI_Aint) + 4 * sizeof(int));
}

typedef struct exchange {
    int *sc, *rc, *sd, *rd, *sbuf, *ref, *got;
    int rtot;
} exchange;

static void exchange_setup(exchange *x, int P, int me, int uniform, MPI_Comm comm)
{
    int stot = 0;
    x->sc = malloc(P * sizeof(int)), x->rc = malloc(P * sizeof(int));
    x->sd = malloc(P * sizeof(int)), x->rd = malloc(P * sizeof(int));
    x->rtot = 0;
    for (int p = 0; p < P; p++) {
        x->sc[p] = uniform ? 3 : count_of(me, p), x->sd[p] = stot, stot += x->sc[p];
        x->rc[p] = uniform ? 3 : count_of(p, me), x->rd[p] = x->rtot, x->rtot += x->rc[p];
    }
    x->sbuf = malloc((stot + 1) * sizeof(int));
    x->ref = calloc(x->rtot + 1, sizeof(int));
    x->got = calloc(x->rtot + 1, sizeof(int));
    for (int k = 0; k < stot; k++) x->sbuf[k] = me * 100000 + k;
    MPI_Alltoallv(x->sbuf, x->sc, x->sd, MPI_INT, x->ref, x->rc, x->rd, MPI_INT, comm);
}

static void exchange_free(exchange *x)
{
    free(x->sbuf); free(x->ref); free(x->got);
    free(x->sc); free(x->rc); free(x->sd); free(x->rd);
}

/* One XCHG_Alltoallv with `sel`; returns 1 when the data differ from MPI's. */
static int run(exchange *x, MPI_Comm comm, const char *sel, long long *peak, long long *data,
               long long *meta)
{
    memset(x->got, 0, (x->rtot + 1) * sizeof(int));
    XCHG_Comm_set_algorithm(comm, "alltoallv", sel);
#ifndef SMPI_H
    isend_calls = sendrecv_calls = 0;
#endif
    XCHG_Alltoallv(x->sbuf, x->sc, x->sd, MPI_INT, x->got, x->rc, x->rd, MPI_INT, comm);
#ifndef SMPI_H
    *data = isend_calls, *meta = sendrecv_calls;
#else
    *data = *meta = -1;
#endif
    XCHG_Comm_get_scratch_peak(comm, "alltoallv", peak);
    return memcmp(x->ref, x->got, x->rtot * sizeof(int)) != 0;
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
        exchange nonuniform, uniform;
        exchange_setup(&nonuniform, Pc, wrank, 0, comm);
        exchange_setup(&uniform, Pc, wrank, 1, comm);
        long long smax = 0;
        for (int s = 0; s < Pc; s++)
            for (int d = 0; d < Pc; d++)
                if (count_of(s, d) * (long long)sizeof(int) > smax)
                    smax = count_of(s, d) * (long long)sizeof(int);

        for (int r = 2; r <= (Pc > 2 ? Pc : 2); r++) {
            schedule plan = replay(Pc, r);
            long long want = wave_peak(Pc, r, smax), bound = want + plan.M * smax;
            for (int copy = 0; copy < 2; copy++) {
                char sel[64];
                long long peak, data, meta, udata, umeta, upeak;
                snprintf(sel, sizeof sel, "parlogna:radix=%d,bounce=%s", r, copy ? "copy" : "wave");
                int wrong = run(&nonuniform, comm, sel, &peak, &data, &meta);
                wrong |= run(&uniform, comm, sel, &upeak, &udata, &umeta);
                long long want_data = Pc == 1 ? 0 : copy ? plan.K : plan.data_wave;
                int peak_ok = copy ? (peak >= want && peak <= bound) : peak == want;
                int messages_ok = udata < 0 || (udata == want_data && umeta == plan.meta);
                if (wrong || !peak_ok || !messages_ok) {
                    bad++;
                    fprintf(stderr, "FAIL rank %d P=%d %s: peak %lld (want %lld%s), data "
                            "messages %lld (want %lld), metadata %lld (want %lld)%s\n",
                            wrank, Pc, sel, peak, want, copy ? " .. bound" : "", udata,
                            want_data, umeta, plan.meta, wrong ? ", wrong data" : "");
                } else if (wrank == 0) {
                    printf("P=%2d %-30s peak=%6lld data messages=%3lld metadata=%3lld\n", Pc,
                           sel, peak, udata, umeta);
                }
                cases++;
            }
        }
        exchange_free(&nonuniform);
        exchange_free(&uniform);
        MPI_Comm_free(&comm);
    }
    int total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (wrank == 0) printf("%s: %d (P, r, bounce) cases, %d failures\n", total ? "FAIL" : "OK",
                           cases, total);
    if (wrank == 0) printf("%d passed, %d failed\n", cases - total, total);
    MPI_Finalize();
    return total != 0;
}
