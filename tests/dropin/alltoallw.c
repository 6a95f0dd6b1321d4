/*
 * A program that calls MPI_Alltoallw the way FFT and I/O codes do, and
 * knows nothing of xchg; run by tests/dropin/run.sh with and without the
 * drop-in. Every received element is checked against the value it computes
 * itself:
 *   - a transpose of a 2-D array of doubles distributed by rows into one
 *     distributed by columns, with subarray datatypes on both sides (a
 *     different subarray per peer; uneven splits, and on 3 or more ranks a
 *     rank that owns no columns: zero-size blocks with count 0);
 *   - a datatype per peer of different kinds: a vector of ints to even
 *     ranks and a struct with holes {int, double} to odd ones, received as
 *     contiguous ints and as a packed struct; counts (s + d) mod 3, zeros
 *     included;
 *   - MPI_IN_PLACE with vector types and symmetric counts.
 * Rank 0 prints one PASS/FAIL line per check, "calls alltoall=0 ...
 * alltoallw=N" (per rank) and "alltoallw: N passed, N failed".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed, rank, size, calls;

static void check(const char *what, int ok)
{
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", all_ok ? "PASS" : "FAIL", what);
    if (all_ok) passed++; else failed++;
}

/* Rows or columns [*lo, *hi) of `n` that rank r owns (uneven split). */
static void split(int n, int r, int *lo, int *hi)
{
    *lo = (int)((long)n * r / size);
    *hi = (int)((long)n * (r + 1) / size);
}

static double element(int i, int j) { return i * 1000.0 + j + 0.25; }

static void transpose_check(void)
{
    /* On 3 or more ranks, N1 = P - 1 columns leave one rank without any. */
    const int N0 = 2 * size + 1, N1 = size >= 3 ? size - 1 : 3 * size + 1;
    int r0, r1, c0, c1;
    split(N0, rank, &r0, &r1);
    split(N1, rank, &c0, &c1);
    int rows = r1 - r0, cols = c1 - c0;
    double *a = malloc(sizeof(double) * (size_t)(rows * N1 + 1));
    double *b = malloc(sizeof(double) * (size_t)(N0 * cols + 1));
    int *ints = malloc(sizeof(int) * 4 * (size_t)size);
    int *sc = ints, *sd = sc + size, *rc = sd + size, *rd = rc + size;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)size), *rt = st + size;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < N1; j++) a[i * N1 + j] = element(r0 + i, j);
    for (int k = 0; k < N0 * cols; k++) b[k] = -1;
    for (int p = 0; p < size; p++) {
        int pr0, pr1, pc0, pc1;
        split(N0, p, &pr0, &pr1);
        split(N1, p, &pc0, &pc1);
        sd[p] = rd[p] = 0;
        st[p] = rt[p] = MPI_DOUBLE;
        sc[p] = rc[p] = 0;
        if (rows > 0 && pc1 > pc0) { /* my rows, p's columns */
            int sizes[2] = {rows, N1}, sub[2] = {rows, pc1 - pc0}, start[2] = {0, pc0};
            MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &st[p]);
            MPI_Type_commit(&st[p]);
            sc[p] = 1;
        }
        if (cols > 0 && pr1 > pr0) { /* p's rows, my columns */
            int sizes[2] = {N0, cols}, sub[2] = {pr1 - pr0, cols}, start[2] = {pr0, 0};
            MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &rt[p]);
            MPI_Type_commit(&rt[p]);
            rc[p] = 1;
        }
    }
    int err = MPI_Alltoallw(a, sc, sd, st, b, rc, rd, rt, MPI_COMM_WORLD);
    calls++;
    int ok = err == MPI_SUCCESS;
    for (int i = 0; i < N0 && ok; i++)
        for (int j = 0; j < cols; j++) ok &= b[i * cols + j] == element(i, c0 + j);
    char what[128];
    snprintf(what, sizeof what, "transpose %dx%d by subarrays (%s)", N0, N1,
             size >= 3 ? "a rank without columns: zero-size blocks" : "uneven");
    check(what, ok);
    for (int p = 0; p < size; p++) {
        if (sc[p]) MPI_Type_free(&st[p]);
        if (rc[p]) MPI_Type_free(&rt[p]);
    }
    free(a); free(b); free(ints); free(st);
}

static int ival(int s, int d, int k) { return s * 10000 + d * 100 + k; }

/* Where the k-th int of a run of vectors (2 ints, stride 3, extent 4 ints) lies. */
static int vec_pos(int k) { return 4 * (k / 2) + 3 * (k % 2); }

/* The struct with holes: an int at 0 and a double at 8, extent 24. */
typedef struct { int i; int pad0; double d; double pad1; } holey;

static void mixed_check(void)
{
    MPI_Datatype vec, holes_inner, holes, packed_inner, packed;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec); /* 2 ints, stride 3: extent 16 */
    MPI_Type_commit(&vec);
    int lens[2] = {1, 1};
    MPI_Datatype mem[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Aint hd[2] = {0, 8}, pd[2] = {0, 4};
    MPI_Type_create_struct(2, lens, hd, mem, &holes_inner);
    MPI_Type_create_resized(holes_inner, 0, (MPI_Aint)sizeof(holey), &holes);
    MPI_Type_commit(&holes);
    MPI_Type_create_struct(2, lens, pd, mem, &packed_inner); /* int, double: 12 bytes */
    MPI_Type_create_resized(packed_inner, 0, 12, &packed);
    MPI_Type_commit(&packed);
    MPI_Type_free(&holes_inner);
    MPI_Type_free(&packed_inner);

    int *ints = malloc(sizeof(int) * 4 * (size_t)size);
    int *sc = ints, *sd = sc + size, *rc = sd + size, *rd = rc + size;
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * 2 * (size_t)size), *rt = st + size;
    const int slot = 256; /* bytes per peer in both buffers */
    char *sbuf = calloc((size_t)size, slot), *rbuf = malloc((size_t)size * slot);
    memset(rbuf, 0x5a, (size_t)size * slot);
    for (int p = 0; p < size; p++) {
        int n = (rank + p) % 3; /* elements to p and from p alike */
        sd[p] = rd[p] = p * slot;
        sc[p] = rc[p] = n;
        if (p % 2 == 0) { /* to an even rank: vectors; it receives 2n ints */
            st[p] = vec;
            int *v = (int *)(sbuf + sd[p]);
            for (int k = 0; k < 2 * n; k++) v[vec_pos(k)] = ival(rank, p, k);
        } else { /* to an odd rank: structs with holes; it receives packed ones */
            st[p] = holes;
            holey *h = (holey *)(sbuf + sd[p]);
            for (int k = 0; k < n; k++) h[k].i = ival(rank, p, k), h[k].d = ival(rank, p, k) + 0.5;
        }
        if (rank % 2 == 0) rt[p] = MPI_INT, rc[p] = 2 * n;
        else rt[p] = packed;
    }
    int err = MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD);
    calls++;
    int ok = err == MPI_SUCCESS;
    for (int p = 0; p < size && ok; p++) {
        int n = (rank + p) % 3;
        const char *blk = rbuf + rd[p];
        int used = rank % 2 == 0 ? 2 * n * 4 : n * 12;
        for (int k = 0; k < n && ok; k++) {
            if (rank % 2 == 0) {
                int v[2];
                memcpy(v, blk + 8 * k, sizeof v);
                ok = v[0] == ival(p, rank, 2 * k) && v[1] == ival(p, rank, 2 * k + 1);
            } else {
                int i;
                double d;
                memcpy(&i, blk + 12 * k, sizeof i);
                memcpy(&d, blk + 12 * k + 4, sizeof d);
                ok = i == ival(p, rank, k) && d == ival(p, rank, k) + 0.5;
            }
        }
        for (int b = used; b < slot && ok; b++) ok = (unsigned char)blk[b] == 0x5a;
    }
    check("vector to even ranks, struct with holes to odd ones, zero counts", ok);

    /* MPI_IN_PLACE: vectors both ways, symmetric counts, slots of 256 bytes. */
    for (int p = 0; p < size; p++) {
        int n = (rank + p) % 3;
        rc[p] = n;
        rd[p] = p * slot;
        rt[p] = vec;
        int *v = (int *)(rbuf + rd[p]);
        memset(v, 0x5a, slot);
        for (int k = 0; k < 2 * n; k++) v[vec_pos(k)] = ival(rank, p, k);
    }
    err = MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, rbuf, rc, rd, rt, MPI_COMM_WORLD);
    calls++;
    ok = err == MPI_SUCCESS;
    for (int p = 0; p < size && ok; p++) {
        int n = (rank + p) % 3, data = 0;
        const int *v = (const int *)(rbuf + rd[p]);
        for (int k = 0; k < 2 * n && ok; k++) ok = v[vec_pos(k)] == ival(p, rank, k);
        for (int i = 0; i < slot / 4 && ok; i++) { /* the holes are untouched */
            int is_data = data < 2 * n && i == vec_pos(data);
            data += is_data;
            ok = is_data || v[i] == 0x5a5a5a5a;
        }
    }
    check("MPI_IN_PLACE with vectors", ok);
    MPI_Type_free(&vec);
    MPI_Type_free(&holes);
    MPI_Type_free(&packed);
    free(ints); free(st); free(sbuf); free(rbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    transpose_check();
    mixed_check();
    if (rank == 0) {
        printf("calls alltoall=0 alltoallv=0 allgather=0 alltoallw=%d (per rank)\n", calls);
        printf("alltoallw: %d passed, %d failed\n", passed, failed);
    }
    MPI_Finalize();
    return failed ? 1 : 0;
}
