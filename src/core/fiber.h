/*
 * Fibers: a function that runs on a stack of its own and can suspend itself
 * (xchg_fiber_yield) and be resumed later (xchg_fiber_resume), in the
 * coroutine style. The task runtime (task.h) runs each nonblocking
 * collective in one, so that an algorithm written as straight-line code
 * (post, wait, post, wait) becomes resumable without being rewritten: its
 * waits suspend the fiber instead of blocking the process.
 *
 * Built on POSIX ucontext (makecontext/swapcontext), with the annotations
 * AddressSanitizer and valgrind need to follow a switch of stacks. A fiber
 * is resumed by one thread at a time (the task runtime holds its lock
 * around a resume); it may be resumed by different threads over its life.
 */
#ifndef XCHG_CORE_FIBER_H
#define XCHG_CORE_FIBER_H

#include <stddef.h>

typedef struct xchg_fiber xchg_fiber;

/* A fiber that will run entry(arg) at its first resume. MPI_ERR_NO_MEM when
 * no stack can be had. */
int xchg_fiber_create(void (*entry)(void *), void *arg, xchg_fiber **out);

/* Run the fiber until it yields or its entry returns. */
void xchg_fiber_resume(xchg_fiber *fiber);

/* Its entry has returned: it must not be resumed again. */
int xchg_fiber_finished(const xchg_fiber *fiber);

/* From inside a fiber: suspend it; the xchg_fiber_resume that ran it
 * returns. Returns when the fiber is resumed again. */
void xchg_fiber_yield(void);

/* The fiber this thread is running, or NULL on a thread's own stack. */
xchg_fiber *xchg_fiber_current(void);

/* Free a fiber that has finished or never started; its stack is kept for
 * the next fiber (a few are cached). */
void xchg_fiber_destroy(xchg_fiber *fiber);

/* Bytes of stack each fiber has (reserved address space; pages are only
 * backed when touched). */
size_t xchg_fiber_stack_size(void);

#endif
