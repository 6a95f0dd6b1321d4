/*
 * The per-communicator context and its life cycle.
 *
 * A keyval is created on first use. The context is attached to the user's
 * communicator; its delete callback (run by MPI_Comm_free, or when the
 * attribute is deleted) frees the private duplicate, the sub-communicators and
 * the topology. Communicators that are never freed (MPI_COMM_WORLD, leaked
 * ones) are cleaned up at MPI_Finalize: an attribute on MPI_COMM_SELF, whose
 * delete callback MPI runs first thing in MPI_Finalize, deletes every live
 * context and then the keyvals.
 */
#include "context.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "hot.h"
#include "vcomm.h"
#include "../select/online.h"

/* Guards the keyvals and the list of live contexts, which contexts of
 * different communicators share (MPI_THREAD_MULTIPLE). */
static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static int context_keyval = MPI_KEYVAL_INVALID;
static int finalize_keyval = MPI_KEYVAL_INVALID;
static xchg_context *live_contexts;
static int finalizing; /* at_finalize runs: contexts go whatever holds them */
static MPI_Comm self_comm = MPI_COMM_NULL; /* xchg_self_comm */
static atomic_int keyvals_ready; /* the keyvals exist: a call need not take the lock */

/* The context a thread found last (context.h: why, and when it is valid). */
_Thread_local xchg_found_context xchg_last_found; /* context.h */

static void unlink_live(xchg_context *ctx)
{
    pthread_mutex_lock(&shared_lock);
    for (xchg_context **p = &live_contexts; *p; p = &(*p)->next_live)
        if (*p == ctx) {
            *p = ctx->next_live;
            break;
        }
    pthread_mutex_unlock(&shared_lock);
}

static void link_live(xchg_context *ctx)
{
    pthread_mutex_lock(&shared_lock);
    ctx->next_live = live_contexts;
    live_contexts = ctx;
    pthread_mutex_unlock(&shared_lock);
}

static void context_destroy(xchg_context *ctx)
{
    /* no thread finds it through xchg_last_found any more */
    atomic_fetch_add_explicit(&xchg_counters.context_generation, 1, memory_order_acq_rel);
    /* MPI lets a program free a communicator with calls still in flight;
     * they complete first (progress, as MPI's own would). */
    if (!ctx->is_inner) xchg_task_drain(ctx);
    if (ctx->setup != MPI_REQUEST_NULL) MPI_Wait(&ctx->setup, MPI_STATUS_IGNORE);
    xchg_online_release(ctx); /* its decisions kept for XCHG_TUNING_OUT */
    xchg_plan_cache_clear(ctx); /* plans free the inner contexts they own */
    xchg_pattern_cache_clear(&ctx->pattern_cache);
    if (ctx->comm != MPI_COMM_NULL && ctx->is_virtual) xchg_vcomm_free(&ctx->comm);
    if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
    xchg_topology_free(&ctx->topo);
    if (!ctx->is_inner) unlink_live(ctx);
    free(ctx);
}

/* MPI_Comm_free: the context goes now, or with the last request that holds
 * it (its operations in flight complete normally; xchg_context_release). */
static int delete_context(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)extra;
    xchg_context *ctx = value;
    /* the handle may come back for another communicator while a request
     * still holds this context: no thread may find it by the handle */
    atomic_fetch_add_explicit(&xchg_counters.context_generation, 1, memory_order_acq_rel);
    ctx->user_freed = 1;
    int last = atomic_fetch_sub_explicit(&ctx->holds, 1, memory_order_acq_rel) == 1;
    int held = !last && !finalizing; /* finalizing: it goes, whatever holds it */
#if defined(OPEN_MPI) && OPEN_MPI
    /* Open MPI 4.1 crashes if the parent of an MPI_Comm_idup in flight is
     * freed: the duplicate is finished first (every rank started it before
     * this collective free). MPICH defers the free, and this callback,
     * until the duplicate is made. */
    if (held && ctx->setup != MPI_REQUEST_NULL) MPI_Wait(&ctx->setup, MPI_STATUS_IGNORE);
#endif
    if (!held) context_destroy(ctx);
    return MPI_SUCCESS;
}

void xchg_context_hold(xchg_context *ctx)
{
    atomic_fetch_add_explicit(&ctx->holds, 1, memory_order_relaxed);
}

void xchg_context_release(xchg_context *ctx)
{
    /* the last reference: the communicator's was dropped (delete_context) */
    if (atomic_fetch_sub_explicit(&ctx->holds, 1, memory_order_acq_rel) == 1 && !finalizing)
        context_destroy(ctx);
}

/* MPI_Finalize: free every context still alive, then the keyvals. */
static int at_finalize(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm; (void)keyval; (void)value; (void)extra;
    xchg_task_drain_all(); /* freed requests' operations, freed communicators' contexts */
    xchg_progress_thread_stop();
    finalizing = 1;
    while (live_contexts) {
        /* Deleting the attribute runs delete_context, which unlinks it. */
        xchg_context *ctx = live_contexts;
        if (ctx->user_freed) { /* held by a request never freed */
            context_destroy(ctx);
            continue;
        }
        /* If MPI refuses (SimGrid SMPI already counts the process as finalized
         * here), the attribute stays on the communicator and MPI may still run
         * delete_context later: forget the context, never free it twice. */
        if (MPI_Comm_delete_attr(ctx->user_comm, context_keyval) != MPI_SUCCESS)
            unlink_live(ctx);
    }
    xchg_online_write_out(); /* XCHG_TUNING_OUT, from the contexts just freed */
    if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
    MPI_Comm_free_keyval(&context_keyval);
    MPI_Comm_free_keyval(&finalize_keyval);
    atomic_store_explicit(&keyvals_ready, 0, memory_order_release);
    finalizing = 0;
    return MPI_SUCCESS;
}

static int ensure_keyvals(void)
{
    int rc = MPI_SUCCESS;
    if (atomic_load_explicit(&keyvals_ready, memory_order_acquire)) return MPI_SUCCESS;
    pthread_mutex_lock(&shared_lock);
    if (context_keyval != MPI_KEYVAL_INVALID) goto fail; /* done already */
    XCHG_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_context, &context_keyval, NULL));
    XCHG_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &finalize_keyval, NULL));
    XCHG_CHECK(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL));
    atomic_store_explicit(&keyvals_ready, 1, memory_order_release);
fail:
    pthread_mutex_unlock(&shared_lock);
    return rc;
}

int xchg_self_comm(MPI_Comm *comm)
{
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&shared_lock);
    if (self_comm == MPI_COMM_NULL) {
        XCHG_CHECK(MPI_Comm_dup(MPI_COMM_SELF, &self_comm));
        XCHG_CHECK(MPI_Comm_set_errhandler(self_comm, MPI_ERRORS_RETURN));
    }
fail:
    *comm = self_comm;
    pthread_mutex_unlock(&shared_lock);
    return rc;
}

/* A zeroed context, aligned to its first field's 64 bytes: the fast path's
 * fields share one cache line (context.h). free() frees it. */
static xchg_context *context_alloc(void)
{
    return xchg_zalloc_aligned(_Alignof(xchg_context), sizeof(xchg_context));
}

/* The context of user_comm, or a new one whose private duplicate is being
 * made (MPI_Comm_idup: nonblocking, so a nonblocking call may create it;
 * xchg_context_ready finishes it). */
static int find_or_create(MPI_Comm user_comm, xchg_context **out)
{
    int rc, found = 0;
    xchg_context *ctx = NULL;
    if (user_comm == MPI_COMM_NULL) return xchg_error(MPI_ERR_COMM, "communicator is MPI_COMM_NULL");
    unsigned generation =
        atomic_load_explicit(&xchg_counters.context_generation, memory_order_acquire);
    XCHG_CHECK(ensure_keyvals());
    XCHG_CHECK(MPI_Comm_get_attr(user_comm, context_keyval, &ctx, &found));
    if (found) {
        xchg_last_found.comm = user_comm;
        xchg_last_found.ctx = ctx;
        xchg_last_found.generation = generation;
        *out = ctx;
        return MPI_SUCCESS;
    }
    int inter = 0;
    XCHG_CHECK(MPI_Comm_test_inter(user_comm, &inter));
    if (inter) return xchg_error(MPI_ERR_COMM, "inter-communicators are not supported");
    ctx = context_alloc();
    if (!ctx) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    ctx->user_comm = user_comm;
    ctx->comm = MPI_COMM_NULL;
    ctx->setup = MPI_REQUEST_NULL;
    atomic_init(&ctx->holds, 1); /* the communicator's reference */
    XCHG_CHECK(MPI_Comm_rank(user_comm, &ctx->rank));
    XCHG_CHECK(MPI_Comm_size(user_comm, &ctx->size));
#ifdef SMPI_H /* SimGrid SMPI has no MPI_Comm_idup: simulated runs duplicate at once */
    XCHG_CHECK(MPI_Comm_dup(user_comm, &ctx->comm));
#else
    XCHG_CHECK(MPI_Comm_idup(user_comm, &ctx->comm, &ctx->setup));
#endif
    link_live(ctx);
    rc = MPI_Comm_set_attr(user_comm, context_keyval, ctx);
    if (rc != MPI_SUCCESS) {
        unlink_live(ctx);
        goto fail;
    }
    *out = ctx;
    return MPI_SUCCESS;
fail:
    if (ctx) {
        if (ctx->setup != MPI_REQUEST_NULL) MPI_Wait(&ctx->setup, MPI_STATUS_IGNORE);
        if (ctx->comm != MPI_COMM_NULL) MPI_Comm_free(&ctx->comm);
        free(ctx);
    }
    return rc;
}

int xchg_context_ready(xchg_context *ctx)
{
    int rc = MPI_SUCCESS;
    if (ctx->ready) return MPI_SUCCESS;
    if (ctx->setup != MPI_REQUEST_NULL) XCHG_CHECK(xchg_wait(&ctx->setup, MPI_STATUS_IGNORE));
    XCHG_CHECK(MPI_Comm_set_errhandler(ctx->comm, MPI_ERRORS_RETURN));
    XCHG_CHECK(xchg_topology_build(ctx->comm, 0, &ctx->topo));
    ctx->ready = 1;
fail:
    return rc;
}

int xchg_context_get_nonblocking(MPI_Comm user_comm, xchg_context **out)
{
    xchg_progress(); /* every xchg call advances the outstanding tasks */
    if (xchg_context_found_last(user_comm, out)) return MPI_SUCCESS;
    return find_or_create(user_comm, out);
}

int xchg_context_find(MPI_Comm user_comm, xchg_context **out)
{
    int rc = find_or_create(user_comm, out);
    if (rc != MPI_SUCCESS || (*out)->ready) return rc;
    xchg_task_drain(*out); /* a nonblocking first call may be finishing it */
    return xchg_context_ready(*out);
}

/* A new communicator: split of ctx->comm by (color, key), with
 * MPI_ERRORS_RETURN (collective over ctx->comm); MPI_COMM_NULL for color
 * MPI_UNDEFINED. Inside a task, where MPI_Comm_split would block on the
 * other ranks, a virtual group communicator (vcomm.h) made with
 * nonblocking calls only. */
static int split(xchg_context *ctx, int color, int key, MPI_Comm *out, int *is_virtual)
{
    int rc;
    *out = MPI_COMM_NULL;
    *is_virtual = xchg_task_current() != NULL;
    if (*is_virtual) return xchg_vcomm_split(ctx->comm, color, key, out);
    XCHG_CHECK(MPI_Comm_split(ctx->comm, color, key, out));
    if (*out != MPI_COMM_NULL) XCHG_CHECK(MPI_Comm_set_errhandler(*out, MPI_ERRORS_RETURN));
    return MPI_SUCCESS;
fail:
    if (*out != MPI_COMM_NULL) MPI_Comm_free(out);
    return rc;
}

int xchg_context_inner(xchg_context *ctx, int color, int key, xchg_context **out)
{
    int rc, is_virtual = 0;
    MPI_Comm comm = MPI_COMM_NULL;
    xchg_context *inner = NULL;
    *out = NULL;
    XCHG_CHECK(split(ctx, color, key, &comm, &is_virtual));
    if (comm == MPI_COMM_NULL) return MPI_SUCCESS; /* not a member */
    inner = context_alloc();
    if (!inner) {
        rc = xchg_error(MPI_ERR_NO_MEM, "out of memory");
        goto fail;
    }
    inner->user_comm = MPI_COMM_NULL;
    inner->comm = comm;
    inner->is_inner = 1;
    inner->is_virtual = is_virtual;
    inner->ready = 1;
    inner->setup = MPI_REQUEST_NULL;
    XCHG_CHECK(MPI_Comm_rank(comm, &inner->rank));
    XCHG_CHECK(MPI_Comm_size(comm, &inner->size));
    XCHG_CHECK(xchg_topology_build(comm, 1, &inner->topo));
    *out = inner;
    return MPI_SUCCESS;
fail:
    if (comm != MPI_COMM_NULL && is_virtual) xchg_vcomm_free(&comm);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    free(inner);
    return rc;
}

void xchg_context_inner_free(xchg_context *inner)
{
    if (inner) context_destroy(inner);
}

void *xchg_scratch_alloc(xchg_context *ctx, size_t nbytes)
{
    void *p = xchg_malloc(nbytes);
    if (p) {
        ctx->scratch_now += nbytes;
        if (ctx->scratch_now > ctx->scratch_peak) ctx->scratch_peak = ctx->scratch_now;
    }
    return p;
}

void xchg_scratch_free(xchg_context *ctx, void *ptr, size_t nbytes)
{
    if (!ptr) return;
    free(ptr);
    ctx->scratch_now -= nbytes;
}

void xchg_phase_begin_call(xchg_context *ctx)
{
    ctx->phases.count = 0;
    ctx->phases.mark = MPI_Wtime();
}

void xchg_phase_end(xchg_context *ctx, const char *phase)
{
    double now = MPI_Wtime();
    xchg_phase_times *t = &ctx->phases;
    int i = 0;
    while (i < t->count && strcmp(t->name[i], phase) != 0) i++;
    if (i == t->count) {
        if (t->count == XCHG_MAX_PHASES) return;
        t->name[t->count] = phase;
        t->seconds[t->count++] = 0;
    }
    t->seconds[i] += now - t->mark;
    t->mark = now;
}
