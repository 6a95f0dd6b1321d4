/*
 * Fibers on POSIX ucontext (see fiber.h).
 *
 * Stacks are mmap'd (MAP_NORESERVE: only touched pages cost memory) with a
 * guard page below, so an overflow faults instead of corrupting the heap;
 * a few freed stacks are kept for reuse, so a program that starts one
 * nonblocking call after another does not map and unmap per call.
 *
 * Why the switches are correct. A fiber is only ever entered by
 * xchg_fiber_resume, which saves the resumer's context in fiber->caller and
 * swaps to fiber->self; xchg_fiber_yield saves the fiber's context in
 * fiber->self and swaps back to fiber->caller. `current` (thread-local) names
 * the fiber this thread runs; resume saves and restores the previous value,
 * so nothing is lost if a fiber were resumed from another (it is not: the
 * task runtime never resumes a task from inside one). When the entry
 * returns, the trampoline marks the fiber finished and swaps back for the
 * last time; its stack is not touched again.
 *
 * AddressSanitizer must be told about every switch (its fake stacks and
 * stack bounds are per stack): __sanitizer_start_switch_fiber before each
 * swap, __sanitizer_finish_switch_fiber right after it lands. valgrind is
 * told the stack's range (VALGRIND_STACK_REGISTER), or it takes the switch
 * for a stack overflow.
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include "fiber.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "error.h"

#if defined(__SANITIZE_ADDRESS__)
#define XCHG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XCHG_ASAN 1
#endif
#endif
#ifdef XCHG_ASAN
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define XCHG_VALGRIND 1
#endif
#endif

#define STACK_BYTES ((size_t)1 << 20) /* 1 MiB: algorithms keep arrays on the heap */
#define CACHED_STACKS 8

struct xchg_fiber {
    ucontext_t self, caller;
    void (*entry)(void *);
    void *arg;
    char *map;          /* guard page + stack */
    size_t map_bytes;
    int finished;
    unsigned valgrind_id;
#ifdef XCHG_ASAN
    void *fake_stack;         /* the fiber's, while it is suspended */
    const void *caller_bottom; /* the resumer's stack, for the switch back */
    size_t caller_size;
#endif
};

static XCHG_PER_THREAD xchg_fiber *current;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static char *cached[CACHED_STACKS];
static int num_cached;

static size_t page_bytes(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

size_t xchg_fiber_stack_size(void) { return STACK_BYTES; }

static char *stack_get(size_t map_bytes)
{
    char *map = NULL;
    pthread_mutex_lock(&cache_lock);
    if (num_cached > 0) map = cached[--num_cached];
    pthread_mutex_unlock(&cache_lock);
    if (map) return map;
    map = mmap(NULL, map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0);
    if (map == MAP_FAILED) return NULL;
    if (mprotect(map, page_bytes(), PROT_NONE) != 0) { /* the guard page */
        munmap(map, map_bytes);
        return NULL;
    }
    return map;
}

static void stack_put(char *map, size_t map_bytes)
{
    pthread_mutex_lock(&cache_lock);
    if (num_cached < CACHED_STACKS) {
        cached[num_cached++] = map;
        map = NULL;
    }
    pthread_mutex_unlock(&cache_lock);
    if (map) munmap(map, map_bytes);
}

/* Landing in a fiber (first entry or return from a yield). */
static void landed_in_fiber(xchg_fiber *f)
{
#ifdef XCHG_ASAN
    __sanitizer_finish_switch_fiber(f->fake_stack, &f->caller_bottom, &f->caller_size);
#else
    (void)f;
#endif
}

/* Leaving a fiber for its resumer; `dying` when it will never run again. */
static void leaving_fiber(xchg_fiber *f, int dying)
{
#ifdef XCHG_ASAN
    __sanitizer_start_switch_fiber(dying ? NULL : &f->fake_stack, f->caller_bottom, f->caller_size);
#else
    (void)f;
    (void)dying;
#endif
}

/* makecontext passes ints: the fiber's address travels in two halves. */
static void trampoline(unsigned int high, unsigned int low)
{
    xchg_fiber *f = (xchg_fiber *)(((uintptr_t)high << 32) | (uintptr_t)low);
    landed_in_fiber(f);
    f->entry(f->arg);
    f->finished = 1;
    leaving_fiber(f, 1);
    swapcontext(&f->self, &f->caller);
}

int xchg_fiber_create(void (*entry)(void *), void *arg, xchg_fiber **out)
{
    xchg_fiber *f = calloc(1, sizeof *f);
    size_t guard = page_bytes();
    if (!f) return xchg_error(MPI_ERR_NO_MEM, "out of memory for a task");
    f->entry = entry;
    f->arg = arg;
    f->map_bytes = STACK_BYTES + guard;
    f->map = stack_get(f->map_bytes);
    if (!f->map || getcontext(&f->self) != 0) {
        if (f->map) stack_put(f->map, f->map_bytes);
        free(f);
        return xchg_error(MPI_ERR_NO_MEM, "no stack for a task (mmap of %zu bytes failed)",
                          STACK_BYTES);
    }
    f->self.uc_stack.ss_sp = f->map + guard;
    f->self.uc_stack.ss_size = STACK_BYTES;
    f->self.uc_link = NULL;
#ifdef XCHG_VALGRIND
    f->valgrind_id = VALGRIND_STACK_REGISTER(f->map + guard, f->map + f->map_bytes);
#endif
    uintptr_t bits = (uintptr_t)f;
    makecontext(&f->self, (void (*)(void))trampoline, 2, (unsigned int)(bits >> 32),
                (unsigned int)(bits & 0xffffffffu));
    *out = f;
    return MPI_SUCCESS;
}

void xchg_fiber_resume(xchg_fiber *f)
{
    xchg_fiber *previous = current;
    current = f;
#ifdef XCHG_ASAN
    void *fake_stack = NULL;
    __sanitizer_start_switch_fiber(&fake_stack, f->map + (f->map_bytes - STACK_BYTES), STACK_BYTES);
#endif
    swapcontext(&f->caller, &f->self);
#ifdef XCHG_ASAN
    __sanitizer_finish_switch_fiber(fake_stack, NULL, NULL);
#endif
    current = previous;
}

void xchg_fiber_yield(void)
{
    xchg_fiber *f = current;
    if (!f) return;
    leaving_fiber(f, 0);
    swapcontext(&f->self, &f->caller);
    landed_in_fiber(f);
}

xchg_fiber *xchg_fiber_current(void) { return current; }

int xchg_fiber_finished(const xchg_fiber *fiber) { return fiber->finished; }

void xchg_fiber_destroy(xchg_fiber *f)
{
    if (!f) return;
#ifdef XCHG_VALGRIND
    VALGRIND_STACK_DEREGISTER(f->valgrind_id);
#endif
    stack_put(f->map, f->map_bytes);
    free(f);
}
