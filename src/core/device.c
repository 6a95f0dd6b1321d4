/*
 * Device (GPU) buffers: which memory a pointer addresses, and the decision
 * for a call whose buffers are GPU memory (device.h; docs/design.md,
 * "Device buffers").
 *
 * The drivers are loaded with dlopen and described here by the few types and
 * values xchg needs, so that building xchg needs neither CUDA nor ROCm:
 * - CUDA: the CUDA Driver API reference (NVIDIA, docs.nvidia.com/cuda/
 *   cuda-driver-api), "Data types used by CUDA driver" (CUresult,
 *   CUdeviceptr, CUpointer_attribute, CUmemorytype) and "Unified Addressing"
 *   (cuPointerGetAttribute, cuPointerGetAttributes). cuPointerGetAttributes
 *   answers both questions in one call and reports a pointer CUDA does not
 *   know (host malloc memory) as memory type 0; cuPointerGetAttribute, the
 *   fallback, fails with CUDA_ERROR_INVALID_VALUE for it. Neither calls
 *   cuInit: a process that never initialized the driver
 *   (CUDA_ERROR_NOT_INITIALIZED) has no device memory.
 * - ROCm: the HIP runtime API reference (AMD), hipPointerGetAttributes and
 *   hipPointerAttribute_t; the memory type values changed in ROCm 6.0
 *   (6: unregistered 0, host 1, device 2, managed 3, array 10, unified 11;
 *   5: host 0, device 1, array 2, unified 3), so the runtime's version
 *   (hipRuntimeGetVersion, 60000000 and above for 6.x) picks the table. HIP
 *   has no cheap "not initialized" answer (its first call initializes the
 *   runtime), so xchg uses it only when the program has loaded it already
 *   (RTLD_NOLOAD) at xchg's first call.
 * Managed memory (CU_POINTER_ATTRIBUTE_IS_MANAGED, isManaged) is host memory
 * for xchg: the CPU may access it (pages migrate on demand), as an MPI
 * library without device support does.
 */
#include "device.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "error.h"
#include "topology.h"

#if defined(XCHG_HAVE_MPI_EXT_H)
#include <mpi-ext.h> /* Open MPI's MPIX_Query_cuda_support */
#endif

/* CUDA Driver API (cuda.h), the values xchg uses. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NO_DEVICE = 100,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_MEMORYTYPE_HOST = 1 /* DEVICE 2, ARRAY 3, UNIFIED 4 */
};
typedef unsigned long long cu_deviceptr; /* CUdeviceptr on 64-bit platforms */
typedef int (*cu_get_attribute_fn)(void *data, int attribute, cu_deviceptr ptr);
typedef int (*cu_get_attributes_fn)(unsigned int count, int *attributes, void **data,
                                    cu_deviceptr ptr);

/* HIP runtime API (hip_runtime_api.h): hipPointerAttribute_t's layout, the
 * same in ROCm 5 and 6 (the first field was renamed from memoryType). */
typedef struct hip_pointer_attribute {
    int type;
    int device;
    void *device_pointer;
    void *host_pointer;
    int is_managed;
    unsigned allocation_flags;
} hip_pointer_attribute;
typedef int (*hip_get_attributes_fn)(hip_pointer_attribute *attributes, const void *ptr);
typedef int (*hip_runtime_version_fn)(int *version);

typedef enum { DEVICE_AUTO, DEVICE_AGREE, DEVICE_OFF, DEVICE_INVALID } device_mode;

/* Set once by load_drivers (pthread_once), read-only afterwards. */
static struct {
    device_mode mode;
    char invalid[64];                /* XCHG_DEVICE's value when invalid */
    cu_get_attributes_fn cu_attributes;
    cu_get_attribute_fn cu_attribute;
    hip_get_attributes_fn hip_attributes;
    int hip_6;                       /* ROCm 6's memory type values */
    int any_driver;
} drv;
static pthread_once_t drv_once = PTHREAD_ONCE_INIT;

static void load_cuda(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
    drv.cu_attributes = (cu_get_attributes_fn)dlsym(lib, "cuPointerGetAttributes");
    drv.cu_attribute = (cu_get_attribute_fn)dlsym(lib, "cuPointerGetAttribute");
    if (drv.cu_attributes || drv.cu_attribute) drv.any_driver = 1;
    else dlclose(lib);
}

static void load_hip(void)
{
    static const char *const names[] = {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
        if (!lib) continue;
        drv.hip_attributes = (hip_get_attributes_fn)dlsym(lib, "hipPointerGetAttributes");
        hip_runtime_version_fn version = (hip_runtime_version_fn)dlsym(lib, "hipRuntimeGetVersion");
        int v = 60000000;
        if (version && version(&v) != 0) v = 60000000;
        drv.hip_6 = v >= 60000000;
        if (drv.hip_attributes) {
            drv.any_driver = 1;
            return;
        }
        dlclose(lib);
    }
}

static void load_drivers(void)
{
    const char *mode = getenv("XCHG_DEVICE");
    if (!mode || !*mode || strcmp(mode, "auto") == 0) drv.mode = DEVICE_AUTO;
    else if (strcmp(mode, "agree") == 0) drv.mode = DEVICE_AGREE;
    else if (strcmp(mode, "off") == 0) drv.mode = DEVICE_OFF;
    else {
        drv.mode = DEVICE_INVALID;
        snprintf(drv.invalid, sizeof drv.invalid, "%s", mode);
    }
    if (drv.mode == DEVICE_OFF || drv.mode == DEVICE_INVALID) return;
    load_cuda();
    load_hip();
}

static int mode_error(void)
{
    return xchg_error(MPI_ERR_ARG, "XCHG_DEVICE='%s' is not valid: valid values are auto, "
                                   "agree and off", drv.invalid);
}

/* The CUDA driver's answer. Errors that mean "CUDA does not know this
 * pointer" are host memory; any other leaves the answer unknown. */
static int cuda_memory(const void *ptr, xchg_memory *kind)
{
    unsigned long long type = 0, managed = 0; /* zeroed: the driver writes 4 bytes */
    int rc;
    if (drv.cu_attributes) {
        int attributes[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED};
        void *data[2] = {&type, &managed};
        rc = drv.cu_attributes(2, attributes, data, (cu_deviceptr)(uintptr_t)ptr);
    } else {
        rc = drv.cu_attribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                              (cu_deviceptr)(uintptr_t)ptr);
        if (rc == CUDA_SUCCESS)
            rc = drv.cu_attribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                  (cu_deviceptr)(uintptr_t)ptr);
    }
    if (rc == CUDA_ERROR_INVALID_VALUE || rc == CUDA_ERROR_NOT_INITIALIZED ||
        rc == CUDA_ERROR_DEINITIALIZED || rc == CUDA_ERROR_NO_DEVICE)
        return MPI_SUCCESS; /* unknown to CUDA: host memory */
    if (rc != CUDA_SUCCESS)
        return xchg_error(MPI_ERR_OTHER, "the CUDA driver cannot tell whether %p is device "
                          "memory (cuPointerGetAttributes: CUresult %d); XCHG_DEVICE=off skips "
                          "the check for programs that pass only host memory", ptr, rc);
    if (type != 0 && type != CU_MEMORYTYPE_HOST && !managed) *kind = XCHG_MEMORY_CUDA;
    return MPI_SUCCESS;
}

static int hip_memory(const void *ptr, xchg_memory *kind)
{
    hip_pointer_attribute a;
    memset(&a, 0, sizeof a);
    int rc = drv.hip_attributes(&a, ptr);
    if (rc == 1 || rc == 3 || rc == 4 || rc == 100) /* invalid value, not initialized, ... */
        return MPI_SUCCESS;
    if (rc != 0)
        return xchg_error(MPI_ERR_OTHER, "the HIP runtime cannot tell whether %p is device "
                          "memory (hipPointerGetAttributes: hipError_t %d); XCHG_DEVICE=off "
                          "skips the check for programs that pass only host memory", ptr, rc);
    int host = drv.hip_6 ? (a.type == 0 || a.type == 1 || a.type == 3) : a.type == 0;
    if (!host && !a.is_managed) *kind = XCHG_MEMORY_ROCM;
    return MPI_SUCCESS;
}

int xchg_device_memory(const void *ptr, xchg_memory *kind)
{
    int rc = MPI_SUCCESS;
    *kind = XCHG_MEMORY_HOST;
    pthread_once(&drv_once, load_drivers);
    if (drv.mode == DEVICE_INVALID) return mode_error();
    if (!drv.any_driver || ptr == NULL) return MPI_SUCCESS;
    if (drv.cu_attributes || drv.cu_attribute) rc = cuda_memory(ptr, kind);
    if (rc == MPI_SUCCESS && *kind == XCHG_MEMORY_HOST && drv.hip_attributes)
        rc = hip_memory(ptr, kind);
    return rc;
}

/* The first byte a side of the call touches (its first non-empty block, from
 * the element's true lower bound: with MPI_BOTTOM, an absolute address), or
 * NULL when the side carries no data. */
static const void *first_byte(const xchg_side *s, int blocks)
{
    for (int p = 0; p < blocks; p++)
        if (s->bytes[p] > 0)
            return (const void *)((uintptr_t)s->buf + (uintptr_t)s->offsets[p] +
                                  (uintptr_t)xchg_side_type(s, p)->true_lb);
    return NULL;
}

/* Bits of the agreement: which device memory the call's buffers are, or a
 * failed check. */
enum { HAS_CUDA = 1, HAS_ROCM = 2, CHECK_FAILED = 4 };

/* This rank's buffers: the bits, and for the message which side and where. */
static int local_buffers(const xchg_args *a, int *bits, const char **side, const void **where)
{
    int neighbor = a->coll == XCHG_NEIGHBOR_ALLTOALLV;
    const void *first[2] = {
        a->in_place ? NULL : first_byte(&a->send, neighbor ? a->neighbor.outdegree : a->size),
        first_byte(&a->recv, neighbor ? a->neighbor.indegree : a->size)};
    *bits = 0;
    for (int s = 0; s < 2; s++) {
        xchg_memory kind;
        if (!first[s]) continue;
        int rc = xchg_device_memory(first[s], &kind);
        if (rc != MPI_SUCCESS) return rc;
        if (kind == XCHG_MEMORY_HOST) continue;
        *bits |= kind == XCHG_MEMORY_CUDA ? HAS_CUDA : HAS_ROCM;
        *side = s == 0 ? "send" : (a->in_place ? "receive (MPI_IN_PLACE)" : "receive");
        *where = first[s];
    }
    return MPI_SUCCESS;
}

/* Whether the MPI library reports support for the device memory in `bits`:
 * MPIX_Query_cuda_support (Open MPI's <mpi-ext.h>, MPICH 4), and
 * MPIX_Query_rocm_support (Open MPI 5) or MPIX_Query_hip_support (MPICH 4),
 * where the MPI has them (CMake detects them; pmpi.h maps them to PMPIX_
 * where that exists). */
static int mpi_supports(int bits)
{
    const char *assumed = getenv("XCHG_TEST_ASSUME_DEVICE_SUPPORT"); /* tests only */
    if (assumed && strcmp(assumed, "1") == 0) return 1;
    int cuda = 0, rocm = 0;
#if defined(XCHG_HAVE_MPIX_QUERY_CUDA_SUPPORT)
    if (bits & HAS_CUDA) cuda = MPIX_Query_cuda_support();
#endif
#if defined(XCHG_HAVE_MPIX_QUERY_ROCM_SUPPORT)
    if (bits & HAS_ROCM) rocm = MPIX_Query_rocm_support();
#elif defined(XCHG_HAVE_MPIX_QUERY_HIP_SUPPORT)
    if (bits & HAS_ROCM) rocm = MPIX_Query_hip_support();
#endif
    return (!(bits & HAS_CUDA) || cuda) && (!(bits & HAS_ROCM) || rocm);
}

static const char *memory_name(int bits)
{
    return bits == HAS_CUDA ? "CUDA" : bits == HAS_ROCM ? "ROCm" : "CUDA and ROCm";
}

/* Device buffers somewhere: the `mpi` choice, or why not. */
static int route_to_mpi(const xchg_args *a, int own_bits, int all_bits, const char *side,
                        const void *where, xchg_choice *choice)
{
    int rc, kind;
    if (!mpi_supports(all_bits)) {
        if (own_bits)
            return xchg_error(MPI_ERR_BUFFER, "the %s buffer (%p) is %s device memory and the "
                              "MPI library reports no %s support: xchg's algorithms would "
                              "access it from the CPU; use an MPI with device support, or host "
                              "buffers", side, where, memory_name(own_bits),
                              memory_name(own_bits));
        return xchg_error(MPI_ERR_BUFFER, "another rank's buffers are %s device memory and the "
                          "MPI library reports no %s support (XCHG_DEVICE=agree)",
                          memory_name(all_bits), memory_name(all_bits));
    }
    if (a->coll == XCHG_NEIGHBOR_ALLTOALLV) { /* MPI needs the graph on the communicator */
        XCHG_CHECK(xchg_topology_kind(a->comm, &kind));
        if (kind != MPI_DIST_GRAPH)
            return xchg_error(MPI_ERR_BUFFER, "device buffers in a neighbourhood call go to the "
                              "MPI library, which needs a distributed-graph communicator: an "
                              "XCHG_Topo on a communicator without one cannot serve them");
    }
    XCHG_CHECK(xchg_choice_parse(a->coll, "mpi", choice));
fail:
    return rc;
}

int xchg_device_route_is_local(void)
{
    pthread_once(&drv_once, load_drivers);
    return drv.mode != DEVICE_AGREE;
}

int xchg_device_never(void)
{
    pthread_once(&drv_once, load_drivers);
    return drv.mode == DEVICE_OFF || (drv.mode == DEVICE_AUTO && !drv.any_driver);
}

int xchg_device_route(xchg_context *ctx, xchg_args *args, xchg_choice *choice, int *use_mpi)
{
    int rc = MPI_SUCCESS, checked = MPI_SUCCESS, own = 0, all;
    const char *side = "";
    const void *where = NULL;
    *use_mpi = 0;
    pthread_once(&drv_once, load_drivers);
    if (drv.mode == DEVICE_INVALID) return mode_error();
    if (drv.any_driver) checked = local_buffers(args, &own, &side, &where);
    all = checked == MPI_SUCCESS ? own : CHECK_FAILED;
    if (drv.mode == DEVICE_AGREE) { /* every rank, driver or not */
        int mine = all;
        XCHG_CHECK(xchg_allreduce(&mine, &all, 1, MPI_INT, MPI_BOR, ctx->comm));
        if (checked == MPI_SUCCESS && (all & CHECK_FAILED))
            return xchg_error(MPI_ERR_OTHER, "another rank could not tell whether its buffers "
                              "are device memory (XCHG_DEVICE=agree)");
    }
    XCHG_CHECK(checked); /* its message is set already */
    if (!all) { /* host memory everywhere: now the CPU may take the copy */
        xchg_args_refresh_in_place(args);
        return MPI_SUCCESS;
    }
    XCHG_CHECK(route_to_mpi(args, own, all, side, where, choice));
    args->on_device = 1;
    if (args->in_place) { /* MPI gets MPI_IN_PLACE; never touch the copy */
        free(args->owned_copy);
        args->owned_copy = NULL;
        args->send.buf = NULL;
        args->in_place_source = NULL;
        args->in_place_bytes = 0;
    }
    *use_mpi = 1;
fail:
    return rc;
}
