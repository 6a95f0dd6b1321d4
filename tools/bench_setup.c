/*
 * What setup costs, for xchg-bench:
 *
 *   --persistent N  per round and row, one persistent request: XCHG_*_init
 *                   (info "xchg_algorithm" = the row's selection; the MPI row
 *                   uses MPI's own persistent collective where the MPI has
 *                   one), then N starts (Start + Wait), then the free
 *                   (untimed). Init and every start are timed like a blocking
 *                   iteration: barrier before, the slowest rank's time.
 *   --first-call    per round and row, a fresh communicator (MPI_Comm_dup,
 *                   untimed): XCHG_Comm_set_algorithm on it (creates xchg's
 *                   context: the private duplicate and the topology), then
 *                   its first call (builds and caches the plan, then runs
 *                   it) and its second call (runs the cached plan).
 *
 * MPI's own persistent collective: MPI-4's PMPI_Alltoallv_init etc. (MPICH
 * 4), or Open MPI 4.1's extension PMPIX_Alltoallv_init etc. (mpi-ext.h,
 * "pcollreq"); with neither the MPI row reports not-applicable.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xchg.h"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#if MPI_VERSION >= 4
#define HAVE_MPI_PERSISTENT 1
#define MPI_PERSISTENT_NAME "MPI-4 MPI_*_init"
#define PALLTOALL_INIT PMPI_Alltoall_init
#define PALLTOALLV_INIT PMPI_Alltoallv_init
#define PALLTOALLW_INIT PMPI_Alltoallw_init
#define PALLGATHER_INIT PMPI_Allgather_init
#define PALLGATHERV_INIT PMPI_Allgatherv_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define HAVE_MPI_PERSISTENT 1
#define MPI_PERSISTENT_NAME "Open MPI MPIX_*_init (pcollreq)"
#define PALLTOALL_INIT PMPIX_Alltoall_init
#define PALLTOALLV_INIT PMPIX_Alltoallv_init
#define PALLTOALLW_INIT PMPIX_Alltoallw_init
#define PALLGATHER_INIT PMPIX_Allgather_init
#define PALLGATHERV_INIT PMPIX_Allgatherv_init
#else
#define HAVE_MPI_PERSISTENT 0
#define MPI_PERSISTENT_NAME "none"
#endif

/* A persistent request: xchg's, or MPI's own (selection NULL). */
typedef struct bench_request {
    int is_mpi;
    XCHG_Request xchg;
    MPI_Request mpi;
} bench_request;

const char *bench_mpi_persistent_name(void)
{
    return MPI_PERSISTENT_NAME;
}

int bench_mpi_persistent_available(void)
{
    return HAVE_MPI_PERSISTENT;
}

int bench_mpi_init(const bench_options *o, bench_workload *w, MPI_Comm comm, MPI_Request *req)
{
#if HAVE_MPI_PERSISTENT
    switch (o->coll) {
    case BENCH_ALLTOALLV:
        return PALLTOALLV_INIT(w->sendbuf, w->sendcounts, w->sdispls, MPI_BYTE, w->recvbuf,
                               w->recvcounts, w->rdispls, MPI_BYTE, comm, MPI_INFO_NULL, req);
    case BENCH_ALLTOALLW:
        return PALLTOALLW_INIT(w->sendbuf, w->sendcounts, w->sdispls, w->sendtypes, w->recvbuf,
                               w->recvcounts, w->rdispls, w->recvtypes, comm, MPI_INFO_NULL, req);
    case BENCH_ALLTOALL:
        return PALLTOALL_INIT(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                              comm, MPI_INFO_NULL, req);
    case BENCH_ALLGATHER:
        return PALLGATHER_INIT(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                               comm, MPI_INFO_NULL, req);
    case BENCH_ALLGATHERV:
        return PALLGATHERV_INIT(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->recvcounts,
                                w->rdispls, MPI_BYTE, comm, MPI_INFO_NULL, req);
    default: return MPI_ERR_ARG;
    }
#else
    (void)o, (void)w, (void)comm, (void)req;
    return MPI_ERR_UNSUPPORTED_OPERATION;
#endif
}

int bench_xchg_init(const bench_options *o, bench_workload *w, MPI_Comm comm, MPI_Info info,
                     XCHG_Request *req)
{
    switch (o->coll) {
    case BENCH_ALLTOALLV:
        return XCHG_Alltoallv_init(w->sendbuf, w->sendcounts, w->sdispls, MPI_BYTE, w->recvbuf,
                                   w->recvcounts, w->rdispls, MPI_BYTE, comm, info, req);
    case BENCH_ALLTOALLW:
        return XCHG_Alltoallw_init(w->sendbuf, w->sendcounts, w->sdispls, w->sendtypes, w->recvbuf,
                                   w->recvcounts, w->rdispls, w->recvtypes, comm, info, req);
    case BENCH_ALLTOALL:
        return XCHG_Alltoall_init(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count, MPI_BYTE,
                                  comm, info, req);
    case BENCH_ALLGATHER:
        return XCHG_Allgather_init(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->count,
                                   MPI_BYTE, comm, info, req);
    case BENCH_ALLGATHERV:
        return XCHG_Allgatherv_init(w->sendbuf, w->count, MPI_BYTE, w->recvbuf, w->recvcounts,
                                    w->rdispls, MPI_BYTE, comm, info, req);
    default: return MPI_ERR_ARG;
    }
}

static int request_start_wait(bench_request *r)
{
    if (r->is_mpi) {
        int rc = PMPI_Start(&r->mpi);
        return rc != MPI_SUCCESS ? rc : PMPI_Wait(&r->mpi, MPI_STATUS_IGNORE);
    }
    int rc = XCHG_Start(&r->xchg);
    return rc != MPI_SUCCESS ? rc : XCHG_Wait(&r->xchg, MPI_STATUS_IGNORE);
}

static void request_free(bench_request *r)
{
    if (r->is_mpi) PMPI_Request_free(&r->mpi);
    else XCHG_Request_free(&r->xchg);
}

/* Max over ranks of times[0..n), and whether any rank failed or differs. */
static int reduce_trial(MPI_Comm comm, double *times, int n, int failed, int *wrong)
{
    int local[2] = {failed, *wrong}, global[2];
    PMPI_Allreduce(local, global, 2, MPI_INT, MPI_MAX, comm);
    *wrong = global[1];
    if (global[0]) return MPI_ERR_OTHER;
    PMPI_Allreduce(MPI_IN_PLACE, times, n, MPI_DOUBLE, MPI_MAX, comm);
    return MPI_SUCCESS;
}

static int persistent_trial(const bench_options *o, bench_workload *w, const char *selection,
                            MPI_Comm comm, double *times, int *wrong)
{
    bench_request req = {.is_mpi = selection == NULL, .xchg = XCHG_REQUEST_NULL,
                         .mpi = MPI_REQUEST_NULL};
    MPI_Info info = MPI_INFO_NULL;
    int rc = MPI_SUCCESS, n = o->persistent;
    if (!req.is_mpi && bench_selection_string(selection)[0] == '\0') {
        /* auto: no info key, and no choice left on comm by another row */
        rc = XCHG_Comm_set_algorithm(comm, o->coll_name, "");
    } else if (!req.is_mpi) {
        rc = MPI_Info_create(&info);
        if (rc == MPI_SUCCESS) rc = MPI_Info_set(info, "xchg_algorithm", selection);
    }
    bench_clear_recv(w, w->recvbuf);
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    if (rc == MPI_SUCCESS)
        rc = req.is_mpi ? bench_mpi_init(o, w, comm, &req.mpi)
                        : bench_xchg_init(o, w, comm, info, &req.xchg);
    times[0] = MPI_Wtime() - t0;
    int initialized = rc == MPI_SUCCESS;
    for (int k = 0; k < n; k++) {
        PMPI_Barrier(comm);
        t0 = MPI_Wtime();
        if (rc == MPI_SUCCESS) rc = request_start_wait(&req);
        times[1 + k] = MPI_Wtime() - t0;
    }
    if (initialized) request_free(&req);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    *wrong = rc == MPI_SUCCESS && memcmp(w->recvbuf, w->refbuf, w->recv_bytes) != 0;
    return reduce_trial(comm, times, 1 + n, rc != MPI_SUCCESS, wrong);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median of v[0], v[stride], ... (n values); reorders a copy in scratch. */
static double median_strided(const double *v, int n, int stride, double *scratch)
{
    for (int i = 0; i < n; i++) scratch[i] = v[(size_t)i * (size_t)stride];
    qsort(scratch, (size_t)n, sizeof *scratch, compare_doubles);
    return n % 2 ? scratch[n / 2] : 0.5 * (scratch[n / 2 - 1] + scratch[n / 2]);
}

/* Medians of one row's trials; per call: (init + N starts) / N per trial. */
static int persistent_summarize(const bench_options *o, int trials, const double *times,
                                bench_result *r)
{
    const int n = o->persistent, stride = 1 + n;
    double *scratch = malloc((size_t)trials * (size_t)stride * sizeof *scratch);
    double *per_call = malloc((size_t)trials * sizeof *per_call);
    if (!scratch || !per_call) {
        free(scratch);
        free(per_call);
        return MPI_ERR_NO_MEM;
    }
    for (int t = 0; t < trials; t++) {
        double sum = 0;
        for (int k = 0; k < stride; k++) sum += times[(size_t)t * stride + k];
        per_call[t] = sum / n;
    }
    r->init_us = 1e6 * median_strided(times, trials, stride, scratch);
    r->first_start_us = 1e6 * median_strided(times + 1, trials, stride, scratch);
    r->per_call_us = 1e6 * median_strided(per_call, trials, 1, scratch);
    for (int t = 0; t < trials; t++) /* every start of every trial */
        memcpy(scratch + (size_t)t * n, times + (size_t)t * stride + 1, (size_t)n * sizeof *times);
    qsort(scratch, (size_t)trials * (size_t)n, sizeof *scratch, compare_doubles);
    size_t m = (size_t)trials * (size_t)n;
    r->start_us = 1e6 * (m % 2 ? scratch[m / 2] : 0.5 * (scratch[m / 2 - 1] + scratch[m / 2]));
    free(scratch);
    free(per_call);
    return MPI_SUCCESS;
}

/* Select on a fresh communicator; MPI's row has no context to create. */
static int fresh_select(const bench_options *o, const char *selection, MPI_Comm fresh)
{
    return selection ? XCHG_Comm_set_algorithm(fresh, o->coll_name, bench_selection_string(selection))
                     : MPI_SUCCESS;
}

static int first_call_trial(const bench_options *o, bench_workload *w, const char *selection,
                            MPI_Comm comm, double times[3])
{
    MPI_Comm fresh;
    int rc = PMPI_Comm_dup(comm, &fresh), wrong = 0;
    if (rc != MPI_SUCCESS) return rc; /* collective: fails on every rank or none */
    MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
    PMPI_Barrier(comm);
    double t0 = MPI_Wtime();
    rc = fresh_select(o, selection, fresh);
    times[0] = MPI_Wtime() - t0;
    for (int k = 1; k < 3; k++) {
        PMPI_Barrier(comm);
        t0 = MPI_Wtime();
        if (rc == MPI_SUCCESS) rc = bench_call(o, w, selection == NULL, fresh);
        times[k] = MPI_Wtime() - t0;
    }
    MPI_Comm_free(&fresh);
    return reduce_trial(comm, times, 3, rc != MPI_SUCCESS, &wrong);
}

static int first_call_summarize(int trials, const double *times, int is_mpi, bench_result *r)
{
    double *scratch = malloc((size_t)trials * sizeof *scratch);
    if (!scratch) return MPI_ERR_NO_MEM;
    r->ctx_us = is_mpi ? NAN : 1e6 * median_strided(times, trials, 3, scratch);
    r->first_us = 1e6 * median_strided(times + 1, trials, 3, scratch);
    r->second_us = 1e6 * median_strided(times + 2, trials, 3, scratch);
    free(scratch);
    return MPI_SUCCESS;
}

int bench_setup_alloc(const bench_options *o, int num_rows, int rounds, bench_setup *st)
{
    size_t trials = (size_t)num_rows * (size_t)rounds;
    *st = (bench_setup){.rounds = rounds};
    if (o->persistent)
        st->persistent = malloc(trials * (size_t)(1 + o->persistent) * sizeof(double));
    if (o->first_call) st->first = malloc(trials * 3 * sizeof(double));
    if ((o->persistent && !st->persistent) || (o->first_call && !st->first)) {
        free(st->persistent);
        free(st->first);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void bench_setup_free(bench_setup *st)
{
    free(st->persistent);
    free(st->first);
}

/* Row `row`'s setup trials of one round (right after its blocking slice). */
void bench_setup_round(const bench_options *o, bench_workload *w, const char *selection,
                       MPI_Comm comm, bench_setup *st, int row, int round, bench_result *r)
{
    size_t trial = (size_t)row * (size_t)st->rounds + (size_t)round;
    int wrong = 0;
    if (o->persistent && r->persist_status == ROW_OK) {
        double *t = st->persistent + trial * (size_t)(1 + o->persistent);
        if (persistent_trial(o, w, selection, comm, t, &wrong) != MPI_SUCCESS)
            r->persist_status = ROW_FAILED;
        else if (wrong)
            r->persist_status = ROW_WRONG;
    }
    if (o->first_call && r->first_status == ROW_OK &&
        first_call_trial(o, w, selection, comm, st->first + trial * 3) != MPI_SUCCESS)
        r->first_status = ROW_FAILED;
}

void bench_setup_summarize(const bench_options *o, const bench_setup *st, int row,
                           bench_result *r)
{
    size_t trial = (size_t)row * (size_t)st->rounds;
    if (o->persistent && r->persist_status == ROW_OK &&
        persistent_summarize(o, st->rounds, st->persistent + trial * (size_t)(1 + o->persistent),
                             r) != MPI_SUCCESS)
        r->persist_status = ROW_FAILED;
    if (o->first_call && r->first_status == ROW_OK &&
        first_call_summarize(st->rounds, st->first + trial * 3, r->is_mpi, r) != MPI_SUCCESS)
        r->first_status = ROW_FAILED;
}
