/*
 * Device buffers on a real GPU (tests/device/gpu-check.sh): the CUDA driver
 * API through dlopen (no CUDA toolkit needed: the driver's libcuda.so.1 is
 * enough). Each rank allocates device memory (cuMemAlloc), managed memory
 * (cuMemAllocManaged) and pinned host memory (cuMemAllocHost), and checks:
 *   - xchg_device_memory: device memory is CUDA, the others and malloc are
 *     host memory;
 *   - alltoall, alltoallv (blocking and persistent) and allgather with device
 *     buffers (send, receive, MPI_IN_PLACE): with an MPI that reports CUDA
 *     support, success through `mpi` with the right data (read back with
 *     cuMemcpyDtoH); without, MPI_ERR_BUFFER and the device receive buffer
 *     unchanged; anything else (or a crash) fails;
 *   - managed and pinned memory run xchg's own algorithm, with the right data;
 *   - the cost of one pointer query (printed, not judged).
 * Exit status 77 and "SKIP" when there is no CUDA driver or no GPU.
 * Never set XCHG_TEST_ASSUME_DEVICE_SUPPORT here: an MPI without CUDA support
 * would then read device memory from the CPU.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/device.h"
#include "xchg.h"

typedef unsigned long long cu_ptr; /* CUdeviceptr */
static struct {
    int (*init)(unsigned);
    int (*device_count)(int *);
    int (*device_get)(int *, int);
    int (*primary_retain)(void **, int);
    int (*ctx_set_current)(void *);
    int (*mem_alloc)(cu_ptr *, size_t);
    int (*mem_alloc_managed)(cu_ptr *, size_t, unsigned);
    int (*mem_alloc_host)(void **, size_t);
    int (*mem_free)(cu_ptr);
    int (*mem_free_host)(void *);
    int (*htod)(cu_ptr, const void *, size_t);
    int (*dtoh)(void *, cu_ptr, size_t);
} cu;

#define BLOCK 4
static int rank, size, failures, checks;

static void check(int ok, const char *what, const char *detail)
{
    checks++;
    if (!ok) failures++;
    if (!ok) printf("FAIL rank %d %s: %s\n", rank, what, detail ? detail : "");
}

static int load(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
#define SYM(field, name) *(void **)&cu.field = dlsym(lib, name)
    SYM(init, "cuInit");
    SYM(device_count, "cuDeviceGetCount");
    SYM(device_get, "cuDeviceGet");
    SYM(primary_retain, "cuDevicePrimaryCtxRetain");
    SYM(ctx_set_current, "cuCtxSetCurrent");
    SYM(mem_alloc, "cuMemAlloc_v2");
    SYM(mem_alloc_managed, "cuMemAllocManaged");
    SYM(mem_alloc_host, "cuMemAllocHost_v2");
    SYM(mem_free, "cuMemFree_v2");
    SYM(mem_free_host, "cuMemFreeHost");
    SYM(htod, "cuMemcpyHtoD_v2");
    SYM(dtoh, "cuMemcpyDtoH_v2");
    void **all = (void **)&cu;
    for (size_t i = 0; i < sizeof cu / sizeof(void *); i++)
        if (!all[i]) return 0;
    return 1;
}

static int value(int from, int to, int k) { return from * 1000 + to * 10 + k; }

/* One alltoall-family call with device buffers; send/recv are device
 * pointers (recv also the in-place buffer); host mirrors prepare and check. */
static void device_call(int coll, int in_place, int persistent, cu_ptr dsend, cu_ptr drecv)
{
    static const char *const names[] = {"alltoall", "alltoallv", "allgather"};
    int n = size * BLOCK, counts[size], displs[size], rc;
    int *host = malloc(n * sizeof(int)), *back = malloc(n * sizeof(int));
    char what[128], detail[512];
    snprintf(what, sizeof what, "%s%s%s on device", persistent ? "persistent " : "",
             names[coll], in_place ? " in place" : "");
    for (int p = 0; p < size; p++) counts[p] = BLOCK, displs[p] = p * BLOCK;
    for (int i = 0; i < n; i++) host[i] = value(rank, coll == 2 ? 0 : i / BLOCK, i % BLOCK);
    cu.htod(dsend, host, n * sizeof(int));
    for (int i = 0; i < n; i++) back[i] = -7;
    if (in_place) {
        if (coll == 2)
            for (int i = 0; i < n; i++) back[i] = i / BLOCK == rank ? value(rank, 0, i % BLOCK) : -7;
        else
            memcpy(back, host, n * sizeof(int));
    }
    cu.htod(drecv, back, n * sizeof(int));
    const void *send = in_place ? MPI_IN_PLACE : (const void *)(uintptr_t)dsend;
    void *recv = (void *)(uintptr_t)drecv;
    XCHG_Request req = XCHG_REQUEST_NULL;
    if (coll == 0 && !persistent)
        rc = XCHG_Alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, MPI_COMM_WORLD);
    else if (coll == 2)
        rc = XCHG_Allgather(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, MPI_COMM_WORLD);
    else if (!persistent)
        rc = XCHG_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                            MPI_COMM_WORLD);
    else {
        rc = XCHG_Alltoallv_init(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        if (rc == MPI_SUCCESS) rc = XCHG_Start(&req);
        if (rc == MPI_SUCCESS) rc = XCHG_Wait(&req, MPI_STATUS_IGNORE);
        if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    }
    int *before = malloc(n * sizeof(int));
    memcpy(before, back, n * sizeof(int));
    cu.dtoh(back, drecv, n * sizeof(int));
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    if (cls == MPI_ERR_BUFFER) { /* no CUDA support in the MPI: nothing written */
        snprintf(detail, sizeof detail, "refused, but: %s", XCHG_Last_error());
        check(strstr(XCHG_Last_error(), "no CUDA support") != NULL, what, detail);
        check(memcmp(before, back, n * sizeof(int)) == 0, what, "receive buffer changed");
    } else {
        char used[128] = "";
        XCHG_Comm_get_algorithm(MPI_COMM_WORLD, names[coll], 1, 0, used, (int)sizeof used);
        snprintf(detail, sizeof detail, "rc %d (%s), ran '%s'", rc, XCHG_Last_error(), used);
        check(rc == MPI_SUCCESS && strcmp(used, "mpi") == 0, what, detail);
        for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
            int expected = value(i / BLOCK, coll == 2 ? 0 : rank, i % BLOCK);
            if (back[i] != expected) {
                snprintf(detail, sizeof detail, "element %d is %d, expected %d", i, back[i],
                         expected);
                check(0, what, detail);
                break;
            }
        }
    }
    free(host), free(back), free(before);
}

/* Host-accessible CUDA memory (managed, pinned): xchg's own algorithm. */
static void host_accessible(const char *what, int *send, int *recv)
{
    char used[128] = "", detail[256];
    int n = size * BLOCK;
    for (int i = 0; i < n; i++) send[i] = value(rank, i / BLOCK, i % BLOCK), recv[i] = -7;
    int rc = XCHG_Alltoall(send, BLOCK, MPI_INT, recv, BLOCK, MPI_INT, MPI_COMM_WORLD);
    XCHG_Comm_get_algorithm(MPI_COMM_WORLD, "alltoall", 1, 0, used, (int)sizeof used);
    snprintf(detail, sizeof detail, "rc %d, ran '%s'", rc, used);
    check(rc == MPI_SUCCESS && strcmp(used, "mpi") != 0, what, detail);
    for (int i = 0; i < n; i++)
        if (recv[i] != value(i / BLOCK, rank, i % BLOCK)) {
            check(0, what, "wrong data");
            break;
        }
}

int main(int argc, char **argv)
{
    int count = 0, dev;
    void *ctx;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int ok = load() && cu.init(0) == 0 && cu.device_count(&count) == 0 && count > 0, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0) printf("SKIP: no CUDA driver or no GPU on some rank\n0 passed, 0 failed\n");
        MPI_Finalize();
        return 77;
    }
    cu.device_get(&dev, rank % count);
    cu.primary_retain(&ctx, dev);
    cu.ctx_set_current(ctx);
    size_t bytes = (size_t)size * BLOCK * sizeof(int);
    cu_ptr dsend, drecv, msend, mrecv;
    int *psend, *precv, *heap = malloc(bytes);
    check(cu.mem_alloc(&dsend, bytes) == 0 && cu.mem_alloc(&drecv, bytes) == 0 &&
              cu.mem_alloc_managed(&msend, bytes, 1) == 0 &&
              cu.mem_alloc_managed(&mrecv, bytes, 1) == 0 &&
              cu.mem_alloc_host((void **)&psend, bytes) == 0 &&
              cu.mem_alloc_host((void **)&precv, bytes) == 0,
          "allocations", NULL);
    xchg_memory kind;
    check(xchg_device_memory((void *)(uintptr_t)dsend, &kind) == MPI_SUCCESS &&
              kind == XCHG_MEMORY_CUDA, "cuMemAlloc memory is CUDA device memory", NULL);
    check(xchg_device_memory((void *)(uintptr_t)msend, &kind) == MPI_SUCCESS &&
              kind == XCHG_MEMORY_HOST, "managed memory is host memory for xchg", NULL);
    check(xchg_device_memory(psend, &kind) == MPI_SUCCESS && kind == XCHG_MEMORY_HOST,
          "pinned memory is host memory", NULL);
    check(xchg_device_memory(heap, &kind) == MPI_SUCCESS && kind == XCHG_MEMORY_HOST,
          "malloc memory is host memory", NULL);
    for (int coll = 0; coll < 3; coll++)
        for (int in_place = 0; in_place < 2; in_place++) device_call(coll, in_place, 0, dsend, drecv);
    device_call(1, 0, 1, dsend, drecv);
    device_call(1, 1, 1, dsend, drecv);
    host_accessible("managed memory", (int *)(uintptr_t)msend, (int *)(uintptr_t)mrecv);
    host_accessible("pinned memory", psend, precv);
    double t0 = MPI_Wtime();
    for (int i = 0; i < 10000; i++) xchg_device_memory((void *)(uintptr_t)dsend, &kind);
    double t1 = MPI_Wtime();
    for (int i = 0; i < 10000; i++) xchg_device_memory(heap, &kind);
    double t2 = MPI_Wtime();
    if (rank == 0)
        printf("pointer query: %.0f ns (device memory), %.0f ns (malloc memory)\n",
               (t1 - t0) / 1e4 * 1e9, (t2 - t1) / 1e4 * 1e9);
    cu.mem_free(dsend), cu.mem_free(drecv), cu.mem_free(msend), cu.mem_free(mrecv);
    cu.mem_free_host(psend), cu.mem_free_host(precv);
    free(heap);
    int totals[2] = {checks, failures}, sums[2];
    MPI_Reduce(totals, sums, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%d passed, %d failed\n", sums[0] - sums[1], sums[1]);
    MPI_Finalize();
    return sums[1] && rank == 0 ? 1 : 0;
}
