/*
 * Persistent dense requests as a program uses them: what online selection
 * at init (src/select/online_init.c) gives against the cost model's choice,
 * xchg's `mpi` and the MPI library's own persistent collective.
 *
 *   persistent COLL ROUNDS STARTS SIZE...   (COLL: alltoall, alltoallv,
 *                                            allgather; SIZE: bytes per block)
 *
 * Per size, ROUNDS rounds; in each, every row in turn (the order rotated
 * from round to round), each on a fresh communicator (MPI_Comm_dup, so that
 * no earlier call taught xchg the signature and `auto` measures at init):
 *   MPI    the MPI library's own: MPI-4's MPI_*_init, or Open MPI 4.1's
 *          MPIX_*_init (mpi-ext.h, pcollreq);
 *   auto   XCHG_*_init without an info key (online selection at init);
 *   model  the same under XCHG_ONLINE=0 (the cost model's choice);
 *   mpi    info xchg_algorithm=mpi (xchg posts the library's nonblocking
 *          collective at each start).
 * A row's request: init (after a barrier, the slowest rank's time), then
 * after a barrier STARTS starts, each XCHG_Start/MPI_Start and the wait
 * right after (a solver's loop), their mean, the slowest rank's; the
 * receive buffer then checked against PMPI's blocking collective (exit 1 if
 * it differs). Rank 0 prints CSV: coll,P,bytes,round,row,ran,init_us,start_us.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#if MPI_VERSION >= 4
#define PALLTOALL_INIT PMPI_Alltoall_init
#define PALLTOALLV_INIT PMPI_Alltoallv_init
#define PALLGATHER_INIT PMPI_Allgather_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PALLTOALL_INIT PMPIX_Alltoall_init
#define PALLTOALLV_INIT PMPIX_Alltoallv_init
#define PALLGATHER_INIT PMPIX_Allgather_init
#else
#error "needs MPI-4's persistent collectives or Open MPI's pcollreq extension"
#endif

#define CHECK(call)                                                                    \
    do {                                                                               \
        if ((call) != MPI_SUCCESS) {                                                   \
            fprintf(stderr, "persistent: %s failed: %s\n", #call, XCHG_Last_error()); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                              \
        }                                                                              \
    } while (0)

enum { MPI_ROW, AUTO, MODEL, XCHG_MPI, ROWS };
static const char *const row_names[ROWS] = {"MPI", "auto", "model", "mpi"};

typedef struct call {
    const char *coll;
    int count, P;             /* ints per block */
    int *counts, *displs;     /* alltoallv */
    int *send, *recv, *want;
} call;

static int init_request(const call *c, int row, MPI_Comm comm, MPI_Request *mreq,
                        XCHG_Request *xreq)
{
    MPI_Info info = MPI_INFO_NULL;
    int rc;
    if (row == XCHG_MPI) {
        CHECK(MPI_Info_create(&info));
        CHECK(MPI_Info_set(info, "xchg_algorithm", "mpi"));
    }
    if (row == MODEL) setenv("XCHG_ONLINE", "0", 1);
    int n = c->count;
    if (strcmp(c->coll, "alltoall") == 0)
        rc = row == MPI_ROW ? PALLTOALL_INIT(c->send, n, MPI_INT, c->recv, n, MPI_INT, comm,
                                             MPI_INFO_NULL, mreq)
                            : XCHG_Alltoall_init(c->send, n, MPI_INT, c->recv, n, MPI_INT, comm,
                                                 info, xreq);
    else if (strcmp(c->coll, "alltoallv") == 0)
        rc = row == MPI_ROW
                 ? PALLTOALLV_INIT(c->send, c->counts, c->displs, MPI_INT, c->recv, c->counts,
                                   c->displs, MPI_INT, comm, MPI_INFO_NULL, mreq)
                 : XCHG_Alltoallv_init(c->send, c->counts, c->displs, MPI_INT, c->recv,
                                       c->counts, c->displs, MPI_INT, comm, info, xreq);
    else
        rc = row == MPI_ROW ? PALLGATHER_INIT(c->send, n, MPI_INT, c->recv, n, MPI_INT, comm,
                                              MPI_INFO_NULL, mreq)
                            : XCHG_Allgather_init(c->send, n, MPI_INT, c->recv, n, MPI_INT, comm,
                                                  info, xreq);
    unsetenv("XCHG_ONLINE");
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    return rc;
}

static void reference(call *c, MPI_Comm comm)
{
    int n = c->count;
    if (strcmp(c->coll, "alltoall") == 0)
        CHECK(PMPI_Alltoall(c->send, n, MPI_INT, c->want, n, MPI_INT, comm));
    else if (strcmp(c->coll, "alltoallv") == 0)
        CHECK(PMPI_Alltoallv(c->send, c->counts, c->displs, MPI_INT, c->want, c->counts,
                             c->displs, MPI_INT, comm));
    else
        CHECK(PMPI_Allgather(c->send, n, MPI_INT, c->want, n, MPI_INT, comm));
}

static double slowest(double t, MPI_Comm comm)
{
    double max;
    CHECK(PMPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, comm));
    return max;
}

/* One row's request on a fresh communicator: init and mean start (us). */
static void one_row(call *c, int row, int starts, double *init_us, double *start_us, char *ran)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    size_t total = (size_t)c->count * (size_t)c->P;
    memset(c->recv, 0, total * sizeof(int));
    MPI_Request mreq = MPI_REQUEST_NULL;
    XCHG_Request xreq;
    CHECK(PMPI_Barrier(comm));
    double t = MPI_Wtime();
    CHECK(init_request(c, row, comm, &mreq, &xreq));
    *init_us = slowest(MPI_Wtime() - t, comm) * 1e6;
    CHECK(PMPI_Barrier(comm));
    t = MPI_Wtime();
    for (int s = 0; s < starts; s++) {
        if (row == MPI_ROW) {
            CHECK(MPI_Start(&mreq));
            CHECK(MPI_Wait(&mreq, MPI_STATUS_IGNORE));
        } else {
            CHECK(XCHG_Start(&xreq));
            CHECK(XCHG_Wait(&xreq, MPI_STATUS_IGNORE));
        }
    }
    *start_us = slowest(MPI_Wtime() - t, comm) / starts * 1e6;
    strcpy(ran, "MPI");
    if (row == MPI_ROW) {
        CHECK(MPI_Request_free(&mreq));
    } else {
        CHECK(XCHG_Comm_get_algorithm(comm, c->coll, 1, 0, ran, 256));
        CHECK(XCHG_Request_free(&xreq));
    }
    reference(c, comm);
    int wrong = memcmp(c->recv, c->want, total * sizeof(int)) != 0, any;
    CHECK(PMPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, comm));
    if (any) {
        fprintf(stderr, "persistent: %s %s differs from PMPI\n", c->coll, row_names[row]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(MPI_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    if (argc < 5) {
        if (rank == 0) fprintf(stderr, "usage: persistent COLL ROUNDS STARTS SIZE...\n");
        MPI_Finalize();
        return 2;
    }
    call c = {.coll = argv[1], .P = P};
    int rounds = atoi(argv[2]), starts = atoi(argv[3]);
    for (int a = 4; a < argc; a++) {
        int bytes = atoi(argv[a]);
        c.count = bytes / (int)sizeof(int) > 0 ? bytes / (int)sizeof(int) : 1;
        size_t total = (size_t)c.count * (size_t)P;
        c.send = malloc(total * sizeof(int)), c.recv = malloc(total * sizeof(int));
        c.want = malloc(total * sizeof(int));
        c.counts = malloc(2 * (size_t)P * sizeof(int)), c.displs = c.counts + P;
        for (size_t i = 0; i < total; i++) c.send[i] = rank * 1000003 + (int)i;
        for (int p = 0; p < P; p++) c.counts[p] = c.count, c.displs[p] = p * c.count;
        for (int r = 0; r < rounds; r++)
            for (int k = 0; k < ROWS; k++) {
                int row = (k + r) % ROWS;
                double init_us, start_us;
                char ran[256];
                one_row(&c, row, starts, &init_us, &start_us, ran);
                if (rank == 0)
                    printf("%s,%d,%d,%d,%s,\"%s\",%.2f,%.3f\n", c.coll, P, c.count * 4, r,
                           row_names[row], ran, init_us, start_us);
            }
        free(c.send), free(c.recv), free(c.want), free(c.counts);
    }
    MPI_Finalize();
    return 0;
}
