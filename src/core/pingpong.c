/* T(S) by ping-pong (pingpong.h). */
#include "pingpong.h"

#include <limits.h>
#include <stdlib.h>

#include "error.h"

int xchg_message_time(MPI_Comm comm, int64_t bytes, int samples, double *seconds)
{
    int rc = MPI_SUCCESS, rank, size;
    char *buf = NULL;
    double *rtt = NULL;
    MPI_Comm own = MPI_COMM_NULL; /* a duplicate: no message of the caller's can match */
    if (bytes < 0 || bytes > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "ping-pong of %lld bytes: more than an int counts",
                          (long long)bytes);
    if (samples < 1) return xchg_error(MPI_ERR_ARG, "ping-pong with %d samples", samples);
    XCHG_CHECK(MPI_Comm_dup(comm, &own));
    XCHG_CHECK(MPI_Comm_rank(own, &rank));
    XCHG_CHECK(MPI_Comm_size(own, &size));
    double t = 1e-6 + (double)bytes / 1e9;
    if (size > 1) {
        buf = calloc((size_t)bytes + 1, 1);
        rtt = malloc((size_t)samples * sizeof *rtt);
        if (!buf || !rtt) {
            rc = xchg_error(MPI_ERR_NO_MEM, "out of memory (ping-pong of %lld bytes)",
                            (long long)bytes);
            goto fail; /* the other ranks then wait in the barrier, as in any
                          collective whose scratch allocation fails on one rank */
        }
        for (int i = -2; i < samples; i++) {
            XCHG_CHECK(MPI_Barrier(own));
            double t0 = MPI_Wtime();
            if (rank == 0) {
                XCHG_CHECK(MPI_Send(buf, (int)bytes, MPI_BYTE, 1, XCHG_PINGPONG_TAG, own));
                XCHG_CHECK(MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, XCHG_PINGPONG_TAG, own,
                                    MPI_STATUS_IGNORE));
            } else if (rank == 1) {
                XCHG_CHECK(MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, XCHG_PINGPONG_TAG, own,
                                    MPI_STATUS_IGNORE));
                XCHG_CHECK(MPI_Send(buf, (int)bytes, MPI_BYTE, 0, XCHG_PINGPONG_TAG, own));
            }
            if (i >= 0) rtt[i] = MPI_Wtime() - t0;
        }
        /* The fastest round trip: noise (descheduling, a host's steal time)
         * only ever adds to one, and a median once came out 80x too high on
         * a loaded VM, stretching every skew delay by as much. */
        double fastest = rtt[0];
        for (int i = 1; i < samples; i++)
            if (rtt[i] < fastest) fastest = rtt[i];
        t = 0.5 * fastest;
    }
    XCHG_CHECK(MPI_Bcast(&t, 1, MPI_DOUBLE, 0, own));
    *seconds = t;
fail:
    if (own != MPI_COMM_NULL) {
        int freed = MPI_Comm_free(&own);
        if (rc == MPI_SUCCESS) rc = freed;
    }
    free(buf);
    free(rtt);
    return rc;
}
