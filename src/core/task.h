/*
 * Tasks: one execution of a collective that starts, advances without ever
 * blocking, and completes (docs/design.md, "Tasks and progress").
 *
 * A task runs its body in a fiber (fiber.h). The body is the same code a
 * blocking call runs: selection, plan, the algorithm's rounds. Where that
 * code waits (for messages, for an agreement, for a flag in a window), it
 * calls the task-aware primitives of wait.h, which inside a task test once
 * and suspend the fiber, and outside one (a blocking call) simply wait.
 *
 * Order. The tasks of one communicator run one after another, in the order
 * they were started, which MPI makes the same on every rank: a task's body
 * starts only when every earlier task of its communicator has completed on
 * this rank. So the messages and the internal MPI collectives of two xchg
 * calls on one communicator are issued in the same order everywhere and
 * cannot match each other's. A blocking call first completes the tasks of its
 * communicator, then runs on the caller's stack.
 *
 * Progress. xchg_progress() resumes every task at the head of its
 * communicator once. It runs in XCHG_Test / XCHG_Wait, at every xchg call,
 * in the drop-in's MPI_Test / MPI_Wait families, inside the waits of a
 * blocking xchg call while tasks are outstanding, and in the optional
 * progress thread (XCHG_PROGRESS_THREAD=1). It is reentrancy-safe (a no-op
 * inside a task) and thread-safe (one thread progresses at a time; the
 * others return at once).
 */
#ifndef XCHG_CORE_TASK_H
#define XCHG_CORE_TASK_H

#include <stdatomic.h>

#include "hot.h"

struct xchg_context;

typedef struct xchg_task xchg_task;
typedef int (*xchg_task_body)(void *arg); /* returns an MPI error code */

/* Queue body(arg) behind the communicator's earlier tasks and run it now, up
 * to its first suspension, if there are none. The caller keeps arg alive
 * until the task completes. */
int xchg_task_start(struct xchg_context *ctx, xchg_task_body body, void *arg, xchg_task **out);

/* Progress, then whether the task has completed. */
int xchg_task_test(xchg_task *task);

/* Progress until the task has completed; its body's result. */
int xchg_task_wait(xchg_task *task);

/* The result of a completed task; then free it. Freeing an incomplete
 * task waits for it first. */
int xchg_task_free(xchg_task *task);

/* Give the task up: it runs on under progress like any other and, once it
 * has completed, is freed and done(arg, result) runs, outside the runtime's
 * lock (at once if it has completed already). MPI_Request_free of an active
 * request: the operation completes later, nobody waits for it. */
typedef void (*xchg_task_done)(void *arg, int result);
void xchg_task_detach(xchg_task *task, xchg_task_done done, void *arg);

/* Complete every outstanding task of the process (MPI_Finalize: detached
 * ones included). */
void xchg_task_drain_all(void);

/* Whether any task of this process is outstanding: one atomic load of
 * task.c's count (hot.h's xchg_counters), inline (every xchg call asks). */
static inline int xchg_tasks_outstanding(void)
{
    return atomic_load_explicit(&xchg_counters.tasks_not_done, memory_order_acquire) > 0;
}

/* Advance every outstanding task once (see above); xchg_progress returns at
 * once, inline, when there is none. */
void xchg_progress_tasks(void);
static inline void xchg_progress(void)
{
    if (xchg_tasks_outstanding()) xchg_progress_tasks();
}

/* Complete every task of ctx (before a blocking call runs on ctx, before a
 * persistent init, before the context is freed). */
int xchg_task_drain(struct xchg_context *ctx);

/* Inside a task: the task; on a thread's own stack: NULL. */
xchg_task *xchg_task_current(void);

/* Suspend the current task until its next resume (no-op outside a task;
 * outside one, progresses the other tasks instead). For loops that poll. */
void xchg_task_yield(void);

/* Start the progress thread if XCHG_PROGRESS_THREAD=1 (once; needs
 * MPI_THREAD_MULTIPLE; an invalid value or level is an error). */
int xchg_progress_thread_init(void);
void xchg_progress_thread_stop(void);

#endif
