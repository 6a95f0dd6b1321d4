/*
 * Device (GPU) buffers without a GPU: the stand-in driver (fake_cuda.c,
 * loaded as libcuda.so.1 through LD_LIBRARY_PATH) reports two page-aligned
 * regions as CUDA device memory; every collective of xchg, blocking,
 * persistent and (neighbourhood) nonblocking, is called with them as send,
 * receive or MPI_IN_PLACE buffer. tests/device/run.sh runs the modes:
 *   refuse    MPI without device support: MPI_ERR_BUFFER with its message,
 *             and the regions are PROT_NONE during the call (a host access
 *             crashes the test) and unchanged after it; host buffers, zero
 *             counts and managed memory still run xchg's algorithms; a
 *             driver error is MPI_ERR_OTHER
 *   mpi       XCHG_TEST_ASSUME_DEVICE_SUPPORT=1: the call runs `mpi`
 *             (XCHG_Comm_get_algorithm), even over a chosen algorithm, with
 *             the right results (the regions are host pages: MPI reads them);
 *             host buffers keep the chosen algorithm
 *   agree     XCHG_DEVICE=agree, device buffers on rank 0 only: every rank
 *             fails, or runs `mpi` under XCHG_TEST_ASSUME_DEVICE_SUPPORT=1;
 *             no hang
 *   off       XCHG_DEVICE=off: xchg asks no driver (query count 0)
 *   nodriver  no libcuda.so.1 at all: host calls run, nothing crashes
 *   badenv    XCHG_DEVICE=bogus: MPI_ERR_ARG naming XCHG_DEVICE
 * Built twice: against xchg (XCHG_ calls), and with -DDROPIN as a plain MPI
 * program run under the drop-in (libxchg-mpi.so preloaded), which finds
 * XCHG_Last_error and XCHG_Comm_get_algorithm with dlsym. The drop-in routes
 * the blocking, nonblocking and persistent dense calls (MPI-4's
 * MPI_Alltoall_init, ... or Open MPI's MPIX_ ones) and the neighbourhood
 * ones, so those are what it calls there.
 * Prints "N passed, N failed" (all ranks) on rank 0.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef DROPIN
/* The persistent collectives the drop-in routes, by this MPI's name for them. */
#if MPI_VERSION >= 4
#define DEVICE_INIT(coll) MPI_##coll##_init
#elif defined(OPEN_MPI) && OPEN_MPI && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#ifdef OMPI_HAVE_MPI_EXT_PCOLLREQ
#define DEVICE_INIT(coll) MPIX_##coll##_init
#endif
#endif
#endif
#define CALL(name) MPI_##name
static const char *(*last_error)(void); /* found with dlsym: NULL without the drop-in */
static int (*get_algorithm)(MPI_Comm, const char *, int, long long, char *, int);
#else
#include "xchg.h"
#define CALL(name) XCHG_##name
static const char *(*last_error)(void) = XCHG_Last_error;
static int (*get_algorithm)(MPI_Comm, const char *, int, long long, char *,
                            int) = XCHG_Comm_get_algorithm;
#endif

#define BLOCK 3          /* ints per block */
#define REGION (1 << 16) /* bytes of each "device" region */

static int rank, size, failures, checks;
static const char *mode;
static int support; /* expect the calls to run `mpi` */
static int (*fake_add)(const void *, size_t, int);
static void (*fake_clear)(void);
static long (*fake_queries)(void);
static void (*fake_fail)(int);
static int *dev_send, *dev_recv; /* the "device" regions */
static int *host_send, *host_recv;
static int device_here; /* this rank passes device buffers (agree: rank 0 only) */
static int agree_mode;  /* XCHG_DEVICE=agree */
static int case_any; /* this case has device buffers (agree: on some rank) */
static MPI_Comm graph;

static void check(int ok, const char *what, const char *detail)
{
    checks++;
    if (!ok) {
        failures++;
        printf("FAIL rank %d %s: %s: %s\n", rank, mode, what, detail ? detail : "");
    }
}

static void protect(int prot)
{
    if (device_here && !support) {
        mprotect(dev_send, REGION, prot);
        mprotect(dev_recv, REGION, prot);
    }
}

static int value(int from, int to, int k) { return from * 1000 + to * 10 + k; }

/* Fill a send buffer (one block per peer; allgather: one block). */
static void fill_send(int *buf, int blocks)
{
    for (int p = 0; p < blocks; p++)
        for (int k = 0; k < BLOCK; k++) buf[p * BLOCK + k] = value(rank, blocks == 1 ? 0 : p, k);
}

static void fill(int *buf, int n, int v)
{
    for (int i = 0; i < n; i++) buf[i] = v;
}

static const char *algorithm_used(MPI_Comm comm, const char *coll)
{
    static char used[256];
    used[0] = '\0';
    if (get_algorithm) get_algorithm(comm, coll, 1, 0, used, (int)sizeof used);
    return used;
}

/* What a case expects of one call's return code and buffers. */
static void expect(int rc, const char *what, MPI_Comm comm, const char *coll, int *recv, int n,
                   int (*expected)(int index))
{
    char detail[512];
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    const char *msg = last_error ? last_error() : "";
    if (!support && case_any) { /* refused */
        snprintf(detail, sizeof detail, "class %d, message '%s'", cls, msg);
        check(cls == MPI_ERR_BUFFER, what, detail);
        check(strstr(msg, "device memory") && strstr(msg, "no CUDA support"), what, msg);
        for (int i = 0; i < n; i++)
            if (recv[i] != -7) {
                snprintf(detail, sizeof detail, "receive buffer written at %d", i);
                check(0, what, detail);
                break;
            }
        return;
    }
    snprintf(detail, sizeof detail, "rc %d (class %d): %s", rc, cls, msg);
    check(rc == MPI_SUCCESS, what, detail);
    if (rc != MPI_SUCCESS) return;
    for (int i = 0; i < n; i++)
        if (recv[i] != expected(i)) {
            snprintf(detail, sizeof detail, "element %d is %d, expected %d", i, recv[i],
                     expected(i));
            check(0, what, detail);
            break;
        }
    const char *used = algorithm_used(comm, coll);
    snprintf(detail, sizeof detail, "ran '%s'", used);
    if (get_algorithm) check(case_any ? strcmp(used, "mpi") == 0 : strcmp(used, "mpi") != 0,
                             what, detail);
}

static int dense_expected(int i) { return value(i / BLOCK, rank, i % BLOCK); }
static int gather_expected(int i) { return value(i / BLOCK, 0, i % BLOCK); }
static int neighbor_expected(int i)
{
    int j = i / BLOCK, src = j == 0 ? (rank + size - 1) % size : (rank + 1) % size;
    return value(src, j, i % BLOCK);
}

/* The buffers of one case: which side is "device" memory. */
typedef enum { SEND_DEVICE, RECV_DEVICE, BOTH_DEVICE, IN_PLACE, HOST_ONLY } layout;
static const char *const layout_names[] = {"send on device", "receive on device",
                                           "both on device", "MPI_IN_PLACE on device",
                                           "host buffers"};

/* Set up buffers: *send, *recv, and where the result is read from. */
static void buffers(layout l, int send_blocks, int recv_ints, const void **send, int **recv)
{
    int dev = device_here && l != HOST_ONLY;
    case_any = agree_mode ? fake_add && l != HOST_ONLY : dev;
    int *s = dev && (l == SEND_DEVICE || l == BOTH_DEVICE) ? dev_send : host_send;
    int *r = dev && l != SEND_DEVICE ? dev_recv : host_recv;
    fill_send(s, send_blocks);
    fill(r, recv_ints, -7);
    if (l == IN_PLACE) {
        if (send_blocks == 1) { /* allgather: the own block in place */
            for (int k = 0; k < BLOCK; k++) r[rank * BLOCK + k] = value(rank, 0, k);
        } else {
            fill_send(r, send_blocks);
        }
        /* refused: the receive buffer must stay as it is; compare with -7 is
         * wrong there, so in place is checked only for "unchanged" below */
    }
    *send = l == IN_PLACE ? MPI_IN_PLACE : s;
    *recv = r;
}

static void dense_cases(void)
{
    int counts[size], displs[size], bdispls[size];
    MPI_Datatype types[size];
    for (int p = 0; p < size; p++)
        counts[p] = BLOCK, displs[p] = p * BLOCK, bdispls[p] = p * BLOCK * (int)sizeof(int),
        types[p] = MPI_INT;
    for (int l = SEND_DEVICE; l <= HOST_ONLY; l++) {
        for (int form = 0; form < 3; form++) { /* 0 blocking, 1 persistent, 2 nonblocking */
#if defined(DROPIN) && !defined(DEVICE_INIT)
            if (form == 1) continue; /* this MPI has no persistent collectives */
#endif
            for (int coll = 0; coll < 4; coll++) {
                static const char *const names[] = {"alltoall", "alltoallv", "allgather",
                                                    "alltoallw"};
                const void *send;
                int *recv, rc, n = size * BLOCK;
                char what[160];
                static const char *const forms[] = {"blocking", "persistent", "nonblocking"};
                snprintf(what, sizeof what, "%s %s, %s", forms[form], names[coll],
                         layout_names[l]);
                buffers((layout)l, coll == 2 ? 1 : size, n, &send, &recv);
                int saved[n]; /* in place: what a refused call must leave */
                memcpy(saved, recv, sizeof saved);
                protect(PROT_NONE);
                if (form == 0) {
                    if (coll == 0)
                        rc = CALL(Alltoall)(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                            MPI_COMM_WORLD);
                    else if (coll == 1)
                        rc = CALL(Alltoallv)(send, counts, displs, MPI_INT, recv, counts,
                                             displs, MPI_INT, MPI_COMM_WORLD);
                    else if (coll == 2)
                        rc = CALL(Allgather)(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                             MPI_COMM_WORLD);
                    else
                        rc = CALL(Alltoallw)(send, counts, bdispls, types, recv, counts,
                                             bdispls, types, MPI_COMM_WORLD);
                }
#ifdef DROPIN
                else { /* MPI_Alltoall_init (MPIX_ on Open MPI 4.1), MPI_Ialltoall, ... */
                    MPI_Request req = MPI_REQUEST_NULL;
                    if (form == 2 && coll == 0)
                        rc = MPI_Ialltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                           MPI_COMM_WORLD, &req);
                    else if (form == 2 && coll == 1)
                        rc = MPI_Ialltoallv(send, counts, displs, MPI_INT, recv, counts, displs,
                                            MPI_INT, MPI_COMM_WORLD, &req);
                    else if (form == 2 && coll == 2)
                        rc = MPI_Iallgather(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                            MPI_COMM_WORLD, &req);
                    else if (form == 2)
                        rc = MPI_Ialltoallw(send, counts, bdispls, types, recv, counts, bdispls,
                                            types, MPI_COMM_WORLD, &req);
#ifdef DEVICE_INIT
                    else if (coll == 0)
                        rc = DEVICE_INIT(Alltoall)(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                                   MPI_COMM_WORLD, MPI_INFO_NULL, &req);
                    else if (coll == 1)
                        rc = DEVICE_INIT(Alltoallv)(send, counts, displs, MPI_INT, recv, counts,
                                                    displs, MPI_INT, MPI_COMM_WORLD,
                                                    MPI_INFO_NULL, &req);
                    else if (coll == 2)
                        rc = DEVICE_INIT(Allgather)(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                                    MPI_COMM_WORLD, MPI_INFO_NULL, &req);
                    else
                        rc = DEVICE_INIT(Alltoallw)(send, counts, bdispls, types, recv, counts,
                                                    bdispls, types, MPI_COMM_WORLD,
                                                    MPI_INFO_NULL, &req);
                    if (rc == MPI_SUCCESS && form == 1) rc = MPI_Start(&req);
#endif
                    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
                }
#else
                else if (form == 2) {
                    XCHG_Request req = XCHG_REQUEST_NULL;
                    if (coll == 0)
                        rc = XCHG_Ialltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                            MPI_COMM_WORLD, &req);
                    else if (coll == 1)
                        rc = XCHG_Ialltoallv(send, counts, displs, MPI_INT, recv, counts, displs,
                                             MPI_INT, MPI_COMM_WORLD, &req);
                    else if (coll == 2)
                        rc = XCHG_Iallgather(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                             MPI_COMM_WORLD, &req);
                    else
                        rc = XCHG_Ialltoallw(send, counts, bdispls, types, recv, counts, bdispls,
                                             types, MPI_COMM_WORLD, &req);
                    if (rc == MPI_SUCCESS) rc = XCHG_Wait(&req, MPI_STATUS_IGNORE);
                }
                else {
                    XCHG_Request req = XCHG_REQUEST_NULL;
                    if (coll == 0)
                        rc = XCHG_Alltoall_init(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                                MPI_COMM_WORLD, MPI_INFO_NULL, &req);
                    else if (coll == 1)
                        rc = XCHG_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts,
                                                 displs, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                 &req);
                    else if (coll == 2)
                        rc = XCHG_Allgather_init(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT,
                                                 MPI_COMM_WORLD, MPI_INFO_NULL, &req);
                    else
                        rc = XCHG_Alltoallw_init(send, counts, bdispls, types, recv, counts,
                                                 bdispls, types, MPI_COMM_WORLD, MPI_INFO_NULL,
                                                 &req);
                    if (rc == MPI_SUCCESS) rc = XCHG_Start(&req);
                    if (rc == MPI_SUCCESS) rc = XCHG_Wait(&req, MPI_STATUS_IGNORE);
                    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
                }
#endif
                protect(PROT_READ | PROT_WRITE);
                if (l == IN_PLACE && rc != MPI_SUCCESS) { /* refused: unchanged */
                    check(memcmp(saved, recv, sizeof saved) == 0, what, "in-place buffer changed");
                    fill(recv, n, -7); /* so that expect() sees it as untouched */
                }
                expect(rc, what, MPI_COMM_WORLD, names[coll], recv, n,
                       coll == 2 ? gather_expected : dense_expected);
            }
        }
    }
}

static void neighbor_cases(void)
{
    int counts[2] = {BLOCK, BLOCK}, displs[2] = {0, BLOCK};
    for (int l = SEND_DEVICE; l <= HOST_ONLY; l++) {
        if (l == IN_PLACE) continue; /* not valid for neighbourhood collectives */
        for (int form = 0; form < 4; form++) { /* blocking, nonblocking, persistent, _ext */
#ifdef DROPIN
            if (form == 3) continue; /* xchg's own extension */
#endif
            const void *send;
            int *recv, rc = MPI_SUCCESS, n = 2 * BLOCK;
            char what[160];
            static const char *const forms[] = {"blocking", "nonblocking", "persistent",
                                                "persistent (_init_ext)"};
            snprintf(what, sizeof what, "%s neighbor_alltoallv, %s", forms[form],
                     layout_names[l]);
            buffers((layout)l, 2, n, &send, &recv); /* block i goes to destination i */
            protect(PROT_NONE);
#ifdef DROPIN
            MPI_Request req = MPI_REQUEST_NULL;
            if (form == 0)
                rc = MPI_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs,
                                            MPI_INT, graph);
            else if (form == 1)
                rc = MPI_Ineighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts,
                                             displs, MPI_INT, graph, &req);
            else {
#if MPI_VERSION >= 4
                rc = MPI_Neighbor_alltoallv_init(send, counts, displs, MPI_INT, recv, counts,
                                                 displs, MPI_INT, graph, MPI_INFO_NULL, &req);
                if (rc == MPI_SUCCESS) rc = MPI_Start(&req);
#else
                protect(PROT_READ | PROT_WRITE);
                continue;
#endif
            }
            if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
            if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
#else
            XCHG_Request req = XCHG_REQUEST_NULL;
            if (form == 0)
                rc = XCHG_Neighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts, displs,
                                             MPI_INT, graph);
            else if (form == 1)
                rc = XCHG_Ineighbor_alltoallv(send, counts, displs, MPI_INT, recv, counts,
                                              displs, MPI_INT, graph, &req);
            else if (form == 2)
                rc = XCHG_Neighbor_alltoallv_init(send, counts, displs, MPI_INT, recv, counts,
                                                  displs, MPI_INT, graph, MPI_INFO_NULL, &req);
            else { /* global indices: the values themselves, as the receivers expect them */
                int64_t sidx[2 * BLOCK], ridx[2 * BLOCK];
                for (int i = 0; i < 2 * BLOCK; i++)
                    sidx[i] = value(rank, i / BLOCK, i % BLOCK), ridx[i] = neighbor_expected(i);
                rc = XCHG_Neighbor_alltoallv_init_ext(send, counts, displs, sidx, MPI_INT, recv,
                                                      counts, displs, ridx, MPI_INT, graph,
                                                      MPI_INFO_NULL, &req);
            }
            if (rc == MPI_SUCCESS && form >= 2) rc = XCHG_Start(&req);
            if (rc == MPI_SUCCESS && req != XCHG_REQUEST_NULL) rc = XCHG_Wait(&req, MPI_STATUS_IGNORE);
            if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
#endif
            protect(PROT_READ | PROT_WRITE);
            expect(rc, what, graph, "neighbor_alltoallv", recv, n, neighbor_expected);
        }
    }
}

/* Cases that hold in one mode only. */
static void special_cases(void)
{
    int rc;
    char detail[256];
    if (strcmp(mode, "refuse") == 0 && fake_add) {
        /* zero counts: no buffer to check, even a PROT_NONE one */
        protect(PROT_NONE);
        rc = CALL(Alltoall)(dev_send, 0, MPI_INT, dev_recv, 0, MPI_INT, MPI_COMM_WORLD);
        protect(PROT_READ | PROT_WRITE);
        check(rc == MPI_SUCCESS, "zero counts on device pointers", last_error ? last_error() : "");
        /* managed memory is host memory: xchg's own algorithm runs on it */
        static int managed[4096];
        fake_add(managed, sizeof managed, 1);
        fill_send(managed, size);
        rc = CALL(Alltoall)(managed, BLOCK, MPI_INT, host_recv, BLOCK, MPI_INT, MPI_COMM_WORLD);
        snprintf(detail, sizeof detail, "rc %d, ran '%s'", rc,
                 algorithm_used(MPI_COMM_WORLD, "alltoall"));
        int last = size * BLOCK - 1;
        check(rc == MPI_SUCCESS && host_recv[last] == dense_expected(last) &&
                  (!get_algorithm || strcmp(algorithm_used(MPI_COMM_WORLD, "alltoall"), "mpi")),
              "managed memory runs xchg", detail);
        /* a driver that fails: MPI_ERR_OTHER, nothing run */
        fake_fail(999);
        rc = CALL(Alltoall)(host_send, BLOCK, MPI_INT, host_recv, BLOCK, MPI_INT, MPI_COMM_WORLD);
        fake_fail(0);
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        snprintf(detail, sizeof detail, "class %d: %s", cls, last_error ? last_error() : "");
        check(cls == MPI_ERR_OTHER && strstr(last_error ? last_error() : "cannot tell", "cannot tell"),
              "driver error", detail);
    }
#ifndef DROPIN
    if (strcmp(mode, "mpi") == 0 && fake_add) {
        /* an XCHG_Topo without a graph: MPI has no collective for it */
        int src[2] = {(rank + size - 1) % size, (rank + 1) % size}, counts[2] = {BLOCK, BLOCK},
            displs[2] = {0, BLOCK};
        XCHG_Topo topo;
        XCHG_Request req = XCHG_REQUEST_NULL;
        XCHG_Topo_create(MPI_COMM_WORLD, 2, src, 2, src, &topo);
        fill_send(dev_send, 2);
        rc = XCHG_Neighbor_alltoallv_topo_init(topo, dev_send, counts, displs, MPI_INT, dev_recv,
                                               counts, displs, MPI_INT, MPI_COMM_WORLD,
                                               MPI_INFO_NULL, &req);
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        check(cls == MPI_ERR_BUFFER && strstr(last_error(), "distributed-graph"),
              "XCHG_Topo with device buffers", last_error());
        if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
        XCHG_Topo_free(&topo);
    }
#endif
    if (strcmp(mode, "off") == 0)
        check(fake_queries && fake_queries() == 0, "XCHG_DEVICE=off asks no driver", NULL);
    if (strcmp(mode, "nodriver") == 0)
        check(fake_add == NULL, "no libcuda.so.1 is loadable here", NULL);
    if (strcmp(mode, "badenv") == 0) {
        rc = CALL(Alltoall)(host_send, BLOCK, MPI_INT, host_recv, BLOCK, MPI_INT, MPI_COMM_WORLD);
        int cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
        check(cls == MPI_ERR_ARG && strstr(last_error ? last_error() : "XCHG_DEVICE", "XCHG_DEVICE"),
              "invalid XCHG_DEVICE", last_error ? last_error() : "");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    mode = argc > 1 ? argv[1] : "refuse";
    const char *assumed = getenv("XCHG_TEST_ASSUME_DEVICE_SUPPORT");
    support = assumed && strcmp(assumed, "1") == 0;
    const char *device_env = getenv("XCHG_DEVICE");
    agree_mode = device_env && strcmp(device_env, "agree") == 0;
#ifdef DROPIN
    last_error = (const char *(*)(void))dlsym(RTLD_DEFAULT, "XCHG_Last_error");
    get_algorithm = (int (*)(MPI_Comm, const char *, int, long long, char *, int))dlsym(
        RTLD_DEFAULT, "XCHG_Comm_get_algorithm");
    check(last_error && get_algorithm, "running under the drop-in (libxchg-mpi.so)", NULL);
#endif
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (cuda) {
        fake_add = (int (*)(const void *, size_t, int))dlsym(cuda, "xchg_fake_cuda_add");
        fake_clear = (void (*)(void))dlsym(cuda, "xchg_fake_cuda_clear");
        fake_queries = (long (*)(void))dlsym(cuda, "xchg_fake_cuda_queries");
        fake_fail = (void (*)(int))dlsym(cuda, "xchg_fake_cuda_fail");
        int (*init)(unsigned) = (int (*)(unsigned))dlsym(cuda, "cuInit");
        if (fake_add && init) init(0); /* as a CUDA program would have */
    }
    if (strcmp(mode, "nodriver") != 0 && strcmp(mode, "badenv") != 0)
        check(fake_add != NULL, "the stand-in libcuda.so.1 is loaded (LD_LIBRARY_PATH)", NULL);
    dev_send = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    dev_recv = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    host_send = malloc(REGION);
    host_recv = malloc(REGION);
    device_here = fake_add && strcmp(mode, "off") != 0 && strcmp(mode, "badenv") != 0 &&
                  (strcmp(mode, "agree") != 0 || rank == 0);
    if (fake_add && strcmp(mode, "badenv") != 0 && (strcmp(mode, "agree") != 0 || rank == 0)) {
        fake_add(dev_send, REGION, 0);
        fake_add(dev_recv, REGION, 0);
    }
    int src[2] = {(rank + size - 1) % size, (rank + 1) % size};
    int dst[2] = {(rank + 1) % size, (rank + size - 1) % size};
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph);
    MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN);
#ifndef DROPIN
    if (support) { /* a chosen algorithm: device buffers override it, host ones keep it */
        XCHG_Comm_set_algorithm(MPI_COMM_WORLD, "alltoall", "pairwise");
        XCHG_Comm_set_algorithm(MPI_COMM_WORLD, "alltoallv", "scattered");
        XCHG_Comm_set_algorithm(MPI_COMM_WORLD, "allgather", "ring");
        XCHG_Comm_set_algorithm(graph, "neighbor_alltoallv", "standard");
    }
#endif
    if (strcmp(mode, "badenv") != 0) {
        dense_cases();
        neighbor_cases();
    }
    special_cases();
    if (fake_clear) fake_clear();
    int totals[2] = {checks, failures}, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%d passed, %d failed\n", sums[0] - sums[1], sums[1]);
    MPI_Comm_free(&graph);
    MPI_Finalize();
    return 0;
}
