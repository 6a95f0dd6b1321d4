/*
 * A distributed 3-D complex FFT with FFTW's MPI interface, checked against a
 * serial FFTW transform of the same data. It knows nothing of xchg.
 *
 * FFTW calls MPI_Alltoall / MPI_Alltoallv only from its alltoall transpose
 * (mpi/transpose-alltoall.c), which the planner considers only for
 * out-of-place transforms that may destroy their input: hence
 * FFTW_DESTROY_INPUT and separate in/out arrays. Grid sizes that P does not
 * divide (30x28x26 on 3 or 4 ranks) give unequal blocks, hence MPI_Alltoallv.
 *
 * Two plans are run and checked:
 *   - FFTW_ESTIMATE, first and with no wisdom: no timing, so the plan
 *     depends only on the grid and P (FFTW 3.3.10 uses the alltoall transpose
 *     for 30x28x26 on 3 ranks, not for grids with equal blocks); the program
 *     prints whether each plan uses it ("mpi-transpose-alltoall");
 *   - FFTW_MEASURE: the planner times its candidates, executing (and so
 *     calling MPI_Alltoall(v) in) the alltoall transposes whichever plan it
 *     then picks, which may differ from run to run.
 * The check (max abs error against the serial transform, relative to the
 * largest output value) holds for any plan.
 *
 * Usage: fftw3d [N0 N1 N2]. Rank 0 prints PASS/FAIL lines and
 * "fftw: N passed, N failed"; the exit status is 1 on failure.
 */
#include <complex.h>
#include <fftw3-mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, passed, failed;

static double complex input(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k)
{
    /* Deterministic and the same on every rank. */
    return sin(0.37 * (double)i + 1.1 * (double)j) + cos(0.21 * (double)k * (double)(i + 1)) +
           I * (0.01 * (double)((i * 131 + j * 17 + k * 7) % 97) - 0.5);
}

static void check(const char *what, int ok)
{
    int all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0) printf("%s %s\n", all_ok ? "PASS" : "FAIL", what);
    if (all_ok) passed++; else failed++;
}

/* Plan with `flags`, run, compare the local slab with the serial result. */
static void run(const char *name, unsigned flags, ptrdiff_t n0, ptrdiff_t n1, ptrdiff_t n2,
                const fftw_complex *serial_out)
{
    ptrdiff_t local_n0, local_0_start;
    ptrdiff_t alloc = fftw_mpi_local_size_3d(n0, n1, n2, MPI_COMM_WORLD, &local_n0, &local_0_start);
    fftw_complex *in = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    fftw_complex *out = fftw_alloc_complex((size_t)(alloc > 0 ? alloc : 1));
    fftw_plan plan = fftw_mpi_plan_dft_3d(n0, n1, n2, in, out, MPI_COMM_WORLD, FFTW_FORWARD, flags);
    if (!plan) {
        check(name, 0);
        return;
    }
    char *desc = fftw_sprint_plan(plan);
    int alltoall = desc && strstr(desc, "mpi-transpose-alltoall") != NULL;
    free(desc);
    /* Planning (FFTW_MEASURE) overwrites the arrays: fill them afterwards. */
    for (int rep = 0; rep < 2; rep++) {
        for (ptrdiff_t i = 0; i < local_n0; i++)
            for (ptrdiff_t j = 0; j < n1; j++)
                for (ptrdiff_t k = 0; k < n2; k++)
                    in[(i * n1 + j) * n2 + k] = input(local_0_start + i, j, k);
        fftw_execute(plan); /* twice: the input is destroyed each time */
    }
    double err = 0, scale = 0;
    for (ptrdiff_t i = 0; i < local_n0; i++)
        for (ptrdiff_t j = 0; j < n1; j++)
            for (ptrdiff_t k = 0; k < n2; k++) {
                const double complex ref = serial_out[((local_0_start + i) * n1 + j) * n2 + k];
                double d = cabs(out[(i * n1 + j) * n2 + k] - ref);
                if (d > err || isnan(d)) err = isnan(d) ? INFINITY : d;
                if (cabs(ref) > scale) scale = cabs(ref);
            }
    double g[2] = {err, scale}, gmax[2];
    MPI_Allreduce(g, gmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int any_alltoall;
    MPI_Allreduce(&alltoall, &any_alltoall, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    char what[200];
    snprintf(what, sizeof what,
             "%s %tdx%tdx%td: max abs error %.3g (relative %.3g), plan uses the alltoall "
             "transpose: %s",
             name, n0, n1, n2, gmax[0], gmax[0] / gmax[1], any_alltoall ? "yes" : "no");
    check(what, gmax[0] / gmax[1] < 1e-10);
    fftw_destroy_plan(plan);
    fftw_free(in);
    fftw_free(out);
}

int main(int argc, char **argv)
{
    ptrdiff_t n[3] = {30, 28, 26};
    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int d = 0; d < 3 && d + 1 < argc; d++) n[d] = atol(argv[d + 1]);

    /* The serial reference, on every rank (the grid is small). */
    size_t total = (size_t)(n[0] * n[1] * n[2]);
    fftw_complex *sin_ = fftw_alloc_complex(total), *sout = fftw_alloc_complex(total);
    fftw_plan sp = fftw_plan_dft_3d((int)n[0], (int)n[1], (int)n[2], sin_, sout, FFTW_FORWARD,
                                    FFTW_ESTIMATE);
    for (ptrdiff_t i = 0; i < n[0]; i++)
        for (ptrdiff_t j = 0; j < n[1]; j++)
            for (ptrdiff_t k = 0; k < n[2]; k++) sin_[(i * n[1] + j) * n[2] + k] = input(i, j, k);
    fftw_execute(sp);

    /* FFTW_ESTIMATE first, with no wisdom: a plan made after FFTW_MEASURE would
     * reuse the measured choice. */
    fftw_forget_wisdom();
    run("FFTW_ESTIMATE|FFTW_DESTROY_INPUT", FFTW_ESTIMATE | FFTW_DESTROY_INPUT, n[0], n[1], n[2], sout);
    run("FFTW_MEASURE|FFTW_DESTROY_INPUT", FFTW_MEASURE | FFTW_DESTROY_INPUT, n[0], n[1], n[2], sout);

    if (rank == 0) printf("fftw: %d passed, %d failed\n", passed, failed);
    fftw_destroy_plan(sp);
    fftw_free(sin_);
    fftw_free(sout);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return failed ? 1 : 0;
}
