/*
 * Thread safety under MPI_THREAD_MULTIPLE.
 *
 * Every rank runs NT threads (default 4). Thread t works on its own duplicate
 * of MPI_COMM_WORLD (duplicated serially before the threads start), so MPI's
 * rule that collectives on one communicator are not concurrent holds, while
 * the threads of a rank call xchg at the same time on different
 * communicators. Each thread makes ITERS (default 300) calls of
 * XCHG_Alltoallv, XCHG_Alltoall and XCHG_Allgather, switching the algorithm
 * on its communicator with XCHG_Comm_set_algorithm before each, and compares
 * every receive buffer byte for byte with the MPI library's own collective
 * (PMPI_Alltoallv etc.) on the same communicator. It also checks that
 * XCHG_Comm_get_algorithm reports the algorithm that thread set, and every
 * CHURN iterations (default 100) replaces its communicator by a duplicate
 * and frees the old one, so contexts are created and destroyed while the
 * other threads run.
 *
 * The first xchg call of each thread creates that communicator's context, so
 * context creation (keyvals, the list of live contexts) runs concurrently.
 *
 * Virtual nodes: unless XCHG_VIRTUAL_NODES is set, nodes of 2 ranks, so the
 * node-aware algorithms have more than one node.
 *
 * Usage: mpirun -n 4 xchg-threads [--threads=NT] [--iters=N] [--churn=N]
 *                                 [--timeout=SEC]
 * If the MPI grants less than MPI_THREAD_MULTIPLE the test says so and
 * passes with nothing run. Last line: "N passed, N failed" (one case per
 * thread and iteration, failed if it failed on any rank). A run that hangs
 * (a deadlock between threads) is stopped after --timeout seconds (default
 * 120; 0: never), each rank first printing which call each thread is in.
 */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xchg.h"

#define MAX_THREADS 16

static const char *const alltoallv_algos[] = {
    "scattered", "parlogna:radix=3", "node_aware", "pairwise", "waitany:window=2",
    "parlinna_coalesced", "hierarchical", "testany", "multileader_node_aware",
    "parlogna:radix=2,bounce=copy", "linear", "locality_aware:groups=2", "node_aware_overlap",
    "locality_aware_overlap:groups=2,batches=2", "multileader_overlap:leaders=2,chunks=2"};
static const char *const alltoall_algos[] = {
    "bruck", "scattered:batch=2", "node_aware", "multileader", "pairwise",
    "nonblocking", "multipair_blocking:stride=2", "hierarchical:inner=bruck", "node_aware_overlap",
    "locality_aware_overlap:groups=2,batches=1", "multileader_overlap"};
static const char *const allgather_algos[] = {"ring", "recursive_doubling", "bruck"};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

typedef struct thread_arg {
    int index;
    MPI_Comm comm;
    int iters, churn;
    unsigned char *failed; /* [iters]: 1 if this rank saw case i fail */
    int rc;                /* non-zero: the thread stopped early */
} thread_arg;

static int world_rank, num_threads;

/* What each thread is doing, for the timeout report. */
static volatile int current_iter[MAX_THREADS];
static const char *volatile current_coll[MAX_THREADS];
static const char *volatile current_algo[MAX_THREADS];

static void fail(thread_arg *t, int iter, const char *coll, const char *algo, const char *what)
{
    t->failed[iter] = 1;
    printf("FAIL rank %d thread %d iter %d %s %s: %s\n", world_rank, t->index, iter, coll, algo,
           what);
    fflush(stdout);
}

/* A deterministic byte of the block from `src` to `dst` at `iter`. */
static unsigned char pattern(int src, int dst, int iter, int thread, int k)
{
    return (unsigned char)(src * 131 + dst * 17 + iter * 7 + thread * 3 + k * 29 + 1);
}

/* Elements (ints) from src to dst for alltoallv: some zero, some not. */
static int vcount(int src, int dst, int iter, int thread)
{
    return (src * 7 + dst * 3 + iter + thread) % 5;
}

/* Run one case: set the algorithm, call xchg and PMPI, compare. Returns 0 on
 * success, 1 if the case failed, -1 if the thread cannot go on. */
static int one_case(thread_arg *t, int iter)
{
    MPI_Comm comm = t->comm;
    int P, me, rc, status = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    const int which = (iter + t->index) % 3;
    const char *coll = which == 0 ? "alltoallv" : which == 1 ? "alltoall" : "allgather";
    const int k = iter / 3 + t->index;
    const char *algo = which == 0   ? alltoallv_algos[k % COUNT(alltoallv_algos)]
                       : which == 1 ? alltoall_algos[k % COUNT(alltoall_algos)]
                                    : allgather_algos[k % COUNT(allgather_algos)];
    current_iter[t->index] = iter;
    current_coll[t->index] = coll;
    current_algo[t->index] = algo;
    int *scounts = calloc((size_t)P, sizeof(int)), *sdispls = calloc((size_t)P, sizeof(int));
    int *rcounts = calloc((size_t)P, sizeof(int)), *rdispls = calloc((size_t)P, sizeof(int));
    int stotal = 0, rtotal = 0, block = 1 + (iter % 4) * 5; /* ints per peer */
    if (which == 0) {
        for (int q = 0; q < P; q++) {
            scounts[q] = vcount(me, q, iter, t->index);
            rcounts[q] = vcount(q, me, iter, t->index);
            sdispls[q] = stotal; /* gaps: one int after each send block, two after */
            rdispls[q] = rtotal; /* each receive block (their bytes are compared too) */
            stotal += scounts[q] + 1;
            rtotal += rcounts[q] + 2;
        }
    } else {
        stotal = which == 1 ? block * P : block;
        rtotal = block * P;
    }
    size_t sbytes = (size_t)(stotal + 1) * sizeof(int), rbytes = (size_t)(rtotal + 1) * sizeof(int);
    unsigned char *sendbuf = malloc(sbytes), *got = malloc(rbytes), *want = malloc(rbytes);
    if (!scounts || !sdispls || !rcounts || !rdispls || !sendbuf || !got || !want) {
        fail(t, iter, coll, algo, "out of memory");
        status = -1;
        goto out;
    }
    /* Fill the send buffer: the ints of the block for q carry pattern(me, q). */
    memset(sendbuf, 0x5a, sbytes);
    for (int q = 0; q < P; q++) {
        int off = which == 0 ? sdispls[q] : which == 1 ? q * block : 0;
        int n = which == 0 ? scounts[q] : block;
        for (int e = 0; e < n * (int)sizeof(int); e++)
            sendbuf[(size_t)off * sizeof(int) + (size_t)e] =
                pattern(me, which == 2 ? 0 : q, iter, t->index, e);
    }
    memset(got, 0xa5, rbytes);
    memset(want, 0xa5, rbytes);

    rc = XCHG_Comm_set_algorithm(comm, coll, algo);
    if (rc != MPI_SUCCESS) {
        char msg[1200];
        snprintf(msg, sizeof msg, "XCHG_Comm_set_algorithm: %s", XCHG_Last_error());
        fail(t, iter, coll, algo, msg);
        status = -1; /* the ranks may now disagree on the algorithm */
        goto out;
    }
    if (which == 0)
        rc = XCHG_Alltoallv(sendbuf, scounts, sdispls, MPI_INT, got, rcounts, rdispls, MPI_INT,
                            comm);
    else if (which == 1)
        rc = XCHG_Alltoall(sendbuf, block, MPI_INT, got, block, MPI_INT, comm);
    else
        rc = XCHG_Allgather(sendbuf, block, MPI_INT, got, block, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        char msg[1200];
        snprintf(msg, sizeof msg, "error %d: %s", rc, XCHG_Last_error());
        fail(t, iter, coll, algo, msg);
        status = -1; /* a failed collective may leave messages in flight */
        goto out;
    }
    if (which == 0)
        rc = PMPI_Alltoallv(sendbuf, scounts, sdispls, MPI_INT, want, rcounts, rdispls, MPI_INT,
                            comm);
    else if (which == 1)
        rc = PMPI_Alltoall(sendbuf, block, MPI_INT, want, block, MPI_INT, comm);
    else
        rc = PMPI_Allgather(sendbuf, block, MPI_INT, want, block, MPI_INT, comm);
    if (rc != MPI_SUCCESS) {
        fail(t, iter, coll, algo, "the MPI reference call failed");
        status = -1;
        goto out;
    }
    for (size_t b = 0; b < rbytes; b++)
        if (got[b] != want[b]) {
            char msg[200];
            snprintf(msg, sizeof msg, "byte %zu of %zu differs: got 0x%02x, MPI 0x%02x", b,
                     rbytes, got[b], want[b]);
            fail(t, iter, coll, algo, msg);
            status = 1;
            break;
        }
    char used[256] = "";
    rc = XCHG_Comm_get_algorithm(comm, coll, 1, 0, used, sizeof used);
    size_t name_len = strcspn(algo, ":");
    if (rc != MPI_SUCCESS || strncmp(used, algo, name_len) != 0 ||
        (used[name_len] != ':' && used[name_len] != '\0')) {
        char msg[400];
        snprintf(msg, sizeof msg, "XCHG_Comm_get_algorithm says \"%s\"", used);
        fail(t, iter, coll, algo, msg);
        status = 1;
    }
out:
    free(scounts), free(sdispls), free(rcounts), free(rdispls);
    free(sendbuf), free(got), free(want);
    return status;
}

static void *thread_main(void *p)
{
    thread_arg *t = p;
    for (int i = 0; i < t->iters; i++) {
        if (t->churn > 0 && i > 0 && i % t->churn == 0) {
            MPI_Comm fresh;
            if (MPI_Comm_dup(t->comm, &fresh) != MPI_SUCCESS ||
                MPI_Comm_free(&t->comm) != MPI_SUCCESS) {
                fail(t, i, "-", "-", "MPI_Comm_dup/free of the thread's communicator failed");
                t->rc = 1;
                break;
            }
            t->comm = fresh;
        }
        if (one_case(t, i) < 0) {
            for (int j = i + 1; j < t->iters; j++) t->failed[j] = 1; /* not run */
            t->rc = 1;
            break;
        }
    }
    current_iter[t->index] = -1;
    return NULL;
}

/* The process is hung: say where each thread is, then exit. */
static void on_alarm(int sig)
{
    (void)sig;
    char line[300];
    for (int t = 0; t < num_threads; t++) {
        int n = current_iter[t] < 0
                    ? snprintf(line, sizeof line, "FAIL: timeout: rank %d thread %d finished\n",
                               world_rank, t)
                    : snprintf(line, sizeof line,
                               "FAIL: timeout: rank %d thread %d in iter %d %s %s\n", world_rank,
                               t, current_iter[t], current_coll[t] ? current_coll[t] : "-",
                               current_algo[t] ? current_algo[t] : "-");
        ssize_t ignored = write(STDOUT_FILENO, line, (size_t)n);
        (void)ignored;
    }
    _exit(1);
}

int main(int argc, char **argv)
{
    int nthreads = 4, iters = 300, churn = 100, timeout = 120, provided, size;
    for (int i = 1; i < argc; i++) {
        if (sscanf(argv[i], "--threads=%d", &nthreads) == 1) continue;
        if (sscanf(argv[i], "--iters=%d", &iters) == 1) continue;
        if (sscanf(argv[i], "--churn=%d", &churn) == 1) continue;
        if (sscanf(argv[i], "--timeout=%d", &timeout) == 1) continue;
        fprintf(stderr, "usage: xchg-threads [--threads=NT] [--iters=N] [--churn=N] "
                        "[--timeout=SEC]\n");
        return 2;
    }
    if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1) {
        fprintf(stderr, "xchg-threads: --threads must be 1..%d, --iters >= 1\n", MAX_THREADS);
        return 2;
    }
    setenv("XCHG_VIRTUAL_NODES", "2", 0); /* before any thread exists */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (world_rank == 0) {
            printf("SKIP: the MPI provides thread level %d, less than MPI_THREAD_MULTIPLE (%d)\n",
                   provided, MPI_THREAD_MULTIPLE);
            printf("0 passed, 0 failed\n");
        }
        MPI_Finalize();
        return 0;
    }
    num_threads = nthreads;
    if (timeout > 0) {
        signal(SIGALRM, on_alarm);
        alarm((unsigned)timeout);
    }
    if (world_rank == 0)
        printf("world size %d, %d threads per rank, %d calls per thread, communicator "
               "replaced every %d calls, XCHG_VIRTUAL_NODES=%s\n",
               size, nthreads, iters, churn, getenv("XCHG_VIRTUAL_NODES"));
    fflush(stdout);

    thread_arg args[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    unsigned char *failed = calloc((size_t)nthreads * (size_t)iters, 1);
    unsigned char *any_failed = calloc((size_t)nthreads * (size_t)iters, 1);
    if (!failed || !any_failed) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int t = 0; t < nthreads; t++) { /* serially: MPI_Comm_dup is collective */
        args[t] = (thread_arg){.index = t, .iters = iters, .churn = churn,
                               .failed = failed + (size_t)t * (size_t)iters};
        MPI_Comm_dup(MPI_COMM_WORLD, &args[t].comm);
        MPI_Comm_set_errhandler(args[t].comm, MPI_ERRORS_RETURN);
    }
    int started = 0;
    for (int t = 0; t < nthreads; t++, started++)
        if (pthread_create(&threads[t], NULL, thread_main, &args[t]) != 0) {
            printf("FAIL rank %d: pthread_create\n", world_rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int t = 0; t < started; t++) pthread_join(threads[t], NULL);
    alarm(0);

    /* A case failed if it failed on any rank. */
    int count = nthreads * iters;
    PMPI_Allreduce(failed, any_failed, count, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    int nfailed = 0;
    for (int c = 0; c < count; c++) nfailed += any_failed[c] != 0;
    for (int t = 0; t < nthreads; t++) MPI_Comm_free(&args[t].comm);
    if (world_rank == 0) printf("%d passed, %d failed\n", count - nfailed, nfailed);
    free(failed);
    free(any_failed);
    MPI_Finalize();
    return nfailed ? 1 : 0;
}
