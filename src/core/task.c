/*
 * The task runtime (task.h): tasks in fibers, one queue per communicator,
 * and progress.
 *
 * Data. Every outstanding task is on the process's list `all` (in start
 * order) and on its context's queue (ctx->task_head .. task_tail). A task
 * is `queued` until it reaches the head of its context's queue, then
 * `running` (its fiber started and suspended at a wait) until its body
 * returns, `done` after. Only the head of a queue runs, so a context's
 * tasks run one after another.
 *
 * Locking. `engine` guards the list, the queues and every resume. Starting
 * takes it (blocking: a start must queue); progress only tries it, so a
 * thread that finds another progressing returns at once (that thread
 * advances every task anyway). Nothing waits for another rank while holding
 * it: a resume runs a body up to its next wait, which tests and yields.
 * A thread never resumes a task from inside a task (`in_task` guards the
 * reentrancy of xchg_progress from a body that calls back into xchg).
 *
 * Detached tasks (xchg_task_detach: their request was freed while active)
 * have no owner to free them: when one completes, resume() moves it from
 * the process's list to `finished`, and whoever progressed frees it and runs
 * its `done` after releasing the lock (finish_detached), since `done` frees
 * the request and may free the communicator's context, calling MPI.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "task.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context.h"
#include "error.h"
#include "fiber.h"

enum task_state { TASK_QUEUED, TASK_RUNNING, TASK_DONE };

struct xchg_task {
    xchg_context *ctx;
    xchg_task_body body;
    void *arg;
    xchg_fiber *fiber;
    enum task_state state;
    int result;
    xchg_task *next_in_ctx;          /* the context's queue */
    xchg_task *next_all, *prev_all;  /* the process's list */
    xchg_task_done done;             /* detached: runs once it has completed */
    void *done_arg;
    int detached;
    xchg_task *next_finished;        /* detached and completed: to finish */
};

static pthread_mutex_t engine = PTHREAD_MUTEX_INITIALIZER;
static xchg_task *all_head, *all_tail;
xchg_call_counters xchg_counters; /* tasks not yet done, contexts gone (hot.h) */
static xchg_task *finished;     /* detached tasks completed, not yet freed */
static XCHG_PER_THREAD xchg_task *running_task;

xchg_task *xchg_task_current(void) { return running_task; }

static void fiber_entry(void *arg)
{
    xchg_task *task = arg;
    task->result = task->body(task->arg);
}

/* Under `engine`: off the process's list (its own next_all stays, so a walk
 * of the list that reached it goes on). */
static void unlink_all(xchg_task *task)
{
    if (task->prev_all) task->prev_all->next_all = task->next_all;
    else all_head = task->next_all;
    if (task->next_all) task->next_all->prev_all = task->prev_all;
    else all_tail = task->prev_all;
}

/* Under `engine`: run the task up to its next suspension (starting its
 * fiber first if it is the head of its queue for the first time). */
static void resume(xchg_task *task)
{
    if (task->state == TASK_QUEUED) {
        int rc = xchg_fiber_create(fiber_entry, task, &task->fiber);
        if (rc != MPI_SUCCESS) {
            task->result = rc;
            task->state = TASK_DONE;
        } else {
            task->state = TASK_RUNNING;
        }
    }
    if (task->state == TASK_RUNNING) {
        xchg_task *outer = running_task;
        running_task = task;
        xchg_fiber_resume(task->fiber);
        running_task = outer;
        if (xchg_fiber_finished(task->fiber)) {
            xchg_fiber_destroy(task->fiber);
            task->fiber = NULL;
            task->state = TASK_DONE;
        }
    }
    if (task->state == TASK_DONE) { /* off its queue: the next one may run */
        xchg_context *ctx = task->ctx;
        if (ctx->task_head == task) {
            ctx->task_head = task->next_in_ctx;
            if (!ctx->task_head) ctx->task_tail = NULL;
            ctx->tasks_queued--;
        }
        atomic_fetch_sub_explicit(&xchg_counters.tasks_not_done, 1, memory_order_release);
        if (task->detached) { /* nobody waits: finish_detached frees it */
            unlink_all(task);
            task->next_finished = finished;
            finished = task;
        }
    }
}

/* After releasing `engine`: free the detached tasks that completed and run
 * their `done` (never inside a task: it may free contexts). */
static void finish_detached(void)
{
    if (running_task) return;
    for (;;) {
        pthread_mutex_lock(&engine);
        xchg_task *task = finished;
        if (task) finished = task->next_finished;
        pthread_mutex_unlock(&engine);
        if (!task) return;
        xchg_task_done done = task->done;
        void *arg = task->done_arg;
        int result = task->result;
        free(task);
        if (done) done(arg, result);
    }
}

/* Under `engine`: resume every task at the head of its queue, in start order
 * (a task that completes lets the next of its context run in the same pass). */
static void progress_locked(void)
{
    for (xchg_task *t = all_head; t; t = t->next_all)
        if (t->state != TASK_DONE && t->ctx->task_head == t) resume(t);
}

void xchg_progress_tasks(void)
{
    if (running_task) return;
    if (pthread_mutex_trylock(&engine) != 0) return;
    progress_locked();
    pthread_mutex_unlock(&engine);
    finish_detached();
}

int xchg_task_start(xchg_context *ctx, xchg_task_body body, void *arg, xchg_task **out)
{
    int rc = xchg_progress_thread_init();
    if (rc != MPI_SUCCESS) return rc;
    xchg_task *task = calloc(1, sizeof *task);
    if (!task) return xchg_error(MPI_ERR_NO_MEM, "out of memory for a task");
    *task = (xchg_task){.ctx = ctx, .body = body, .arg = arg, .state = TASK_QUEUED};
    pthread_mutex_lock(&engine);
    task->prev_all = all_tail;
    if (all_tail) all_tail->next_all = task;
    else all_head = task;
    all_tail = task;
    if (ctx->task_tail) ctx->task_tail->next_in_ctx = task;
    else ctx->task_head = task;
    ctx->task_tail = task;
    ctx->tasks_queued++;
    atomic_fetch_add_explicit(&xchg_counters.tasks_not_done, 1, memory_order_release);
    if (ctx->task_head == task && !running_task) resume(task);
    pthread_mutex_unlock(&engine);
    *out = task;
    return MPI_SUCCESS;
}

/* Progress once, waiting for the lock (a waiter must not spin on a lock
 * another thread holds without ever getting it). */
static void progress_step(void)
{
    if (running_task) return;
    pthread_mutex_lock(&engine);
    progress_locked();
    pthread_mutex_unlock(&engine);
    finish_detached();
}

static int is_done(xchg_task *task)
{
    pthread_mutex_lock(&engine);
    int done = task->state == TASK_DONE;
    pthread_mutex_unlock(&engine);
    return done;
}

int xchg_task_test(xchg_task *task)
{
    xchg_progress();
    return is_done(task);
}

int xchg_task_wait(xchg_task *task)
{
    while (!is_done(task)) progress_step();
    return task->result;
}

int xchg_task_free(xchg_task *task)
{
    if (!task) return MPI_SUCCESS;
    int rc = xchg_task_wait(task);
    pthread_mutex_lock(&engine);
    unlink_all(task);
    pthread_mutex_unlock(&engine);
    free(task);
    return rc;
}

void xchg_task_detach(xchg_task *task, xchg_task_done done, void *arg)
{
    pthread_mutex_lock(&engine);
    int complete = task->state == TASK_DONE;
    if (complete) {
        unlink_all(task);
    } else {
        task->detached = 1;
        task->done = done;
        task->done_arg = arg;
    }
    pthread_mutex_unlock(&engine);
    if (complete) {
        int result = task->result;
        free(task);
        if (done) done(arg, result);
    }
}

void xchg_task_drain_all(void)
{
    if (running_task) return;
    while (xchg_tasks_outstanding()) {
        progress_step();
        sched_yield();
    }
    finish_detached();
}

int xchg_task_drain(xchg_context *ctx)
{
    if (running_task) return MPI_SUCCESS; /* inside a task: its own context is ordered */
    for (;;) {
        pthread_mutex_lock(&engine);
        int empty = ctx->task_head == NULL;
        if (!empty) progress_locked();
        empty = ctx->task_head == NULL;
        pthread_mutex_unlock(&engine);
        finish_detached();
        if (empty) return MPI_SUCCESS;
        sched_yield();
    }
}

void xchg_task_yield(void)
{
    if (running_task) xchg_fiber_yield();
    else xchg_progress();
}

/* ---- the optional progress thread --------------------------------------
 * XCHG_PROGRESS_THREAD=1 starts, at the first task, a thread that calls
 * xchg_progress() every few microseconds, for programs that compute for
 * long between a start and its wait without calling MPI. It needs
 * MPI_THREAD_MULTIPLE (it calls MPI while the program's threads do); it is
 * stopped in MPI_Finalize, before xchg's contexts are freed. */

static pthread_t progress_thread;
static atomic_int progress_thread_state; /* 0 unchecked, 1 off, 2 running, 3 stopping */

static void *progress_loop(void *unused)
{
    (void)unused;
    struct timespec pause = {0, 20000}; /* 20 us */
    while (atomic_load(&progress_thread_state) == 2) {
        xchg_progress();
        nanosleep(&pause, NULL);
    }
    return NULL;
}

int xchg_progress_thread_init(void)
{
    int expected = 0;
    if (atomic_load(&progress_thread_state) != 0) return MPI_SUCCESS;
    const char *env = getenv("XCHG_PROGRESS_THREAD");
    int want = env && *env && strcmp(env, "0") != 0;
    if (env && *env && strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
        return xchg_error(MPI_ERR_ARG, "XCHG_PROGRESS_THREAD='%s': valid values are 0 and 1", env);
    if (!want) {
        atomic_compare_exchange_strong(&progress_thread_state, &expected, 1);
        return MPI_SUCCESS;
    }
    int level = MPI_THREAD_SINGLE;
    int rc = MPI_Query_thread(&level);
    if (rc != MPI_SUCCESS) return rc;
    if (level != MPI_THREAD_MULTIPLE)
        return xchg_error(MPI_ERR_OTHER, "XCHG_PROGRESS_THREAD=1 needs MPI_Init_thread with "
                          "MPI_THREAD_MULTIPLE");
    if (!atomic_compare_exchange_strong(&progress_thread_state, &expected, 2)) return MPI_SUCCESS;
    if (pthread_create(&progress_thread, NULL, progress_loop, NULL) != 0) {
        atomic_store(&progress_thread_state, 1);
        return xchg_error(MPI_ERR_OTHER, "XCHG_PROGRESS_THREAD=1: no thread could be started");
    }
    return MPI_SUCCESS;
}

void xchg_progress_thread_stop(void)
{
    int running = 2;
    if (atomic_compare_exchange_strong(&progress_thread_state, &running, 3))
        pthread_join(progress_thread, NULL);
    atomic_store(&progress_thread_state, 0);
}
