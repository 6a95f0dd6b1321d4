/*
 * A stand-in for the CUDA driver (libcuda.so.1) for tests without a GPU: it
 * implements the calls xchg makes (cuPointerGetAttributes,
 * cuPointerGetAttribute) and cuInit, and reports the address ranges a test
 * registers as device (or managed) memory. Built as libcuda.so.1 in its own
 * build folder; a test puts that folder first on LD_LIBRARY_PATH, finds the
 * control functions below with dlopen("libcuda.so.1") + dlsym (the same
 * library xchg loads), and makes the "device" range PROT_NONE, so that any
 * host access to it crashes the test.
 * Like the real driver, it answers CUDA_ERROR_NOT_INITIALIZED until cuInit.
 * It also allocates and copies (cuMemAlloc, cuMemcpyHtoD, ...: the end of
 * this file), so that the real-GPU check (gpu_check.c) runs against it too.
 * Values: the CUDA Driver API reference (CUresult, CUpointer_attribute,
 * CUmemorytype).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
    CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
    CU_MEMORYTYPE_DEVICE = 2
};

#define MAX_RANGES 64
static struct range { uintptr_t lo, hi; int managed; } ranges[MAX_RANGES];
static int nranges, initialized;
static long queries;
static int fail_with; /* a CUresult every query returns, when set */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- control, for tests ------------------------------------------------ */

/* Report [ptr, ptr + bytes) as device memory (managed = 1: managed memory). */
EXPORT int xchg_fake_cuda_add(const void *ptr, size_t bytes, int managed)
{
    pthread_mutex_lock(&lock);
    int ok = nranges < MAX_RANGES;
    if (ok) ranges[nranges++] = (struct range){(uintptr_t)ptr, (uintptr_t)ptr + bytes, managed};
    pthread_mutex_unlock(&lock);
    return ok ? 0 : -1;
}

EXPORT void xchg_fake_cuda_clear(void)
{
    pthread_mutex_lock(&lock);
    nranges = 0;
    pthread_mutex_unlock(&lock);
}

/* Pointer queries answered so far. */
EXPORT long xchg_fake_cuda_queries(void)
{
    pthread_mutex_lock(&lock);
    long n = queries;
    pthread_mutex_unlock(&lock);
    return n;
}

/* Make every later query return `result` (0: answer normally again). */
EXPORT void xchg_fake_cuda_fail(int result)
{
    pthread_mutex_lock(&lock);
    fail_with = result;
    pthread_mutex_unlock(&lock);
}

/* ---- the driver API ---------------------------------------------------- */

EXPORT int cuInit(unsigned int flags)
{
    (void)flags;
    pthread_mutex_lock(&lock);
    initialized = 1;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* Look ptr up: CUDA_SUCCESS with *r set or NULL (unknown), or an error. */
static int lookup(unsigned long long ptr, struct range *r, int *found)
{
    int rc = CUDA_SUCCESS;
    *found = 0;
    pthread_mutex_lock(&lock);
    queries++;
    if (!initialized) rc = CUDA_ERROR_NOT_INITIALIZED;
    else if (fail_with) rc = fail_with;
    else
        for (int i = 0; i < nranges; i++)
            if (ptr >= ranges[i].lo && ptr < ranges[i].hi) {
                *r = ranges[i];
                *found = 1;
                break;
            }
    pthread_mutex_unlock(&lock);
    return rc;
}

static int attribute_value(int attribute, const struct range *r, void *data)
{
    unsigned int value;
    if (attribute == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) value = CU_MEMORYTYPE_DEVICE;
    else if (attribute == CU_POINTER_ATTRIBUTE_IS_MANAGED) value = (unsigned int)r->managed;
    else return CUDA_ERROR_INVALID_VALUE;
    memcpy(data, &value, sizeof value);
    return CUDA_SUCCESS;
}

/* Unknown pointers: CUDA_ERROR_INVALID_VALUE, as the driver answers for
 * host malloc memory. */
EXPORT int cuPointerGetAttribute(void *data, int attribute, unsigned long long ptr)
{
    struct range r;
    int found, rc = lookup(ptr, &r, &found);
    if (rc != CUDA_SUCCESS) return rc;
    if (!found) return CUDA_ERROR_INVALID_VALUE;
    return attribute_value(attribute, &r, data);
}

/* Unknown pointers: success with every value zero, as the driver answers. */
EXPORT int cuPointerGetAttributes(unsigned int count, int *attributes, void **data,
                                  unsigned long long ptr)
{
    struct range r;
    int found, rc = lookup(ptr, &r, &found);
    if (rc != CUDA_SUCCESS) return rc;
    for (unsigned int i = 0; i < count; i++) {
        if (!found) {
            memset(data[i], 0, sizeof(unsigned int));
            continue;
        }
        rc = attribute_value(attributes[i], &r, data[i]);
        if (rc != CUDA_SUCCESS) return rc;
    }
    return CUDA_SUCCESS;
}

/* ---- allocation, for tests/device/gpu_check.c run against the stand-in --
 * "Device" memory is a mapping of its own, PROT_NONE except inside the
 * copies below (so a host access crashes, as it would on a GPU); managed
 * memory is host memory registered as managed; pinned memory is plain
 * host memory the driver does not report (the real one reports it as
 * CU_MEMORYTYPE_HOST, which xchg treats alike). */
#include <stdlib.h>
#include <sys/mman.h>

#define MAX_ALLOCS 64
static struct alloc { void *base; size_t bytes; } allocs[MAX_ALLOCS];

static struct alloc *find_alloc(unsigned long long ptr)
{
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].base && ptr >= (uintptr_t)allocs[i].base &&
            ptr < (uintptr_t)allocs[i].base + allocs[i].bytes)
            return &allocs[i];
    return NULL;
}

EXPORT int cuDeviceGetCount(int *count) { *count = 1; return CUDA_SUCCESS; }
EXPORT int cuDeviceGet(int *device, int ordinal) { *device = ordinal; return CUDA_SUCCESS; }
EXPORT int cuDevicePrimaryCtxRetain(void **ctx, int device)
{
    static int context;
    (void)device;
    *ctx = &context;
    return CUDA_SUCCESS;
}
EXPORT int cuCtxSetCurrent(void *ctx) { (void)ctx; return CUDA_SUCCESS; }

EXPORT int cuMemAlloc_v2(unsigned long long *ptr, size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (!allocs[i].base) {
            allocs[i] = (struct alloc){p, bytes};
            xchg_fake_cuda_add(p, bytes, 0);
            *ptr = (uintptr_t)p;
            return CUDA_SUCCESS;
        }
    munmap(p, bytes);
    return 2;
}

EXPORT int cuMemFree_v2(unsigned long long ptr)
{
    struct alloc *a = find_alloc(ptr);
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    munmap(a->base, a->bytes);
    a->base = NULL;
    return CUDA_SUCCESS;
}

EXPORT int cuMemAllocManaged(unsigned long long *ptr, size_t bytes, unsigned int flags)
{
    (void)flags;
    void *p = calloc(1, bytes);
    if (!p) return 2;
    xchg_fake_cuda_add(p, bytes, 1);
    *ptr = (uintptr_t)p;
    return CUDA_SUCCESS;
}

EXPORT int cuMemAllocHost_v2(void **ptr, size_t bytes)
{
    *ptr = malloc(bytes);
    return *ptr ? CUDA_SUCCESS : 2;
}

EXPORT int cuMemFreeHost(void *ptr) { free(ptr); return CUDA_SUCCESS; }

static int copy(void *dst, const void *src, size_t bytes, unsigned long long device)
{
    struct alloc *a = find_alloc(device);
    if (!a) return CUDA_ERROR_INVALID_VALUE;
    mprotect(a->base, a->bytes, PROT_READ | PROT_WRITE);
    memcpy(dst, src, bytes);
    mprotect(a->base, a->bytes, PROT_NONE);
    return CUDA_SUCCESS;
}

EXPORT int cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t bytes)
{
    return copy((void *)(uintptr_t)dst, src, bytes, dst);
}

EXPORT int cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t bytes)
{
    return copy(dst, (const void *)(uintptr_t)src, bytes, src);
}
