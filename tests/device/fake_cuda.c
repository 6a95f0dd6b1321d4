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
