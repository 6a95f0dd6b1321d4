/*
 * Per-communicator context, cached as an attribute on the user's communicator
 * and freed by the attribute's delete callback (when the user frees the
 * communicator) or at MPI_Finalize, whichever comes first. It holds a private
 * duplicate of the communicator for all internal traffic (so xchg's messages
 * never share tag space with the application), the topology, the algorithm
 * chosen for each collective, the cached plans (plan.h) and the accounting of
 * scratch memory.
 *
 * Threads: a context belongs to its communicator, and MPI requires that
 * threads do not call collectives on one communicator concurrently; so only
 * what is shared between contexts (the keyvals and the list of live contexts)
 * is guarded, by a lock in context.c.
 */
#ifndef XCHG_CORE_CONTEXT_H
#define XCHG_CORE_CONTEXT_H

#include "pmpi.h"
#include <stddef.h>
#include "args.h"
#include "pattern_cache.h"
#include "plan.h"
#include "registry.h"
#include "topology.h"
#include "task.h" /* xchg_progress */
#include "wait.h" /* what algorithms wait through */
#include "../select/inputs.h"
#include "../select/select_state.h"

#define XCHG_MAX_PHASES 8

/* Time spent in each named phase of the last call (for --breakdown). */
typedef struct xchg_phase_times {
    int count;
    const char *name[XCHG_MAX_PHASES];
    double seconds[XCHG_MAX_PHASES];
    double mark;             /* MPI_Wtime() of the last phase boundary */
} xchg_phase_times;

/* The fast path of nonblocking `mpi` calls (src/nonblocking_fast.c): the
 * shape of the call whose normal path armed it. */
typedef struct xchg_nonblocking_fast {
    int armed;
    int sendcount, recvcount;        /* alltoall, allgather */
    MPI_Datatype sendtype, recvtype;
    xchg_choice choice;              /* `mpi`, fitted (for ctx->last) */
} xchg_nonblocking_fast;

/* The fast path of blocking neighbourhood `mpi` calls (src/neighbor_fast.c). */
typedef struct xchg_neighbor_fast {
    int armed;
    int agreed;                      /* automatic: counts calls on XCHG_AGREE's schedule */
    xchg_choice choice;              /* `mpi`, fitted (for ctx->last) */
} xchg_neighbor_fast;

typedef struct xchg_context {
    /* What a decided call's fast path reads (src/select/online_fast.c),
     * first, in one cache line: in a program that computes between its
     * calls, each line the path touches is a miss. */
    _Alignas(64) MPI_Comm user_comm; /* the communicator the context is cached on */
    MPI_Comm comm;           /* private duplicate: all internal traffic */
    int rank, size;
    int ready;               /* `comm` and `topo` usable (xchg_context_ready) */
    unsigned accounted_calls; /* calls whose plan ran (plan.c's accounting of
                                 `last`, `phases`): the fast path knows from it
                                 whether another call ran since its last */
    struct xchg_online *online; /* online selection's state (src/select/online.h),
                                   created at its first use; owned there */
    /* Tasks (task.h): the communicator's outstanding tasks, oldest first;
     * only the head runs. Guarded by the task runtime's lock. */
    struct xchg_task *task_head, *task_tail;
    unsigned long online_clock; /* online selection's LRU clock of signatures:
                                   one tick per automatic blocking call, on
                                   either path, so the same on every rank */

    xchg_topology topo;

    int has_override[XCHG_NUM_COLL];
    xchg_choice override[XCHG_NUM_COLL];   /* XCHG_Comm_set_algorithm */
    int has_last[XCHG_NUM_COLL];
    xchg_choice last[XCHG_NUM_COLL];       /* what the last call used */

    size_t scratch_now, scratch_peak;      /* during the current call */
    size_t last_scratch_peak[XCHG_NUM_COLL];

    xchg_select_state selection; /* automatic selection's memory, src/select/'s
                                    (select_state.h) */
    xchg_nonblocking_fast nonblocking_fast[XCHG_NUM_COLL];
    xchg_neighbor_fast neighbor_fast;

    int num_plans;
    unsigned long plan_clock;
    xchg_plan *plans[XCHG_MAX_PLANS];     /* cached plans (plan.h) */
    xchg_pattern_cache pattern_cache;     /* the neighbourhood collective's plans,
                                             keyed by a pattern (pattern_cache.h) */

    int is_inner;            /* an inner context (xchg_context_inner) */
    int is_virtual;          /* its comm is a virtual group communicator (vcomm.h) */
    MPI_Request setup;       /* the MPI_Comm_idup making `comm`, until ready */
    int tasks_queued;

    xchg_phase_times phases;

    struct xchg_context *next_live; /* list of live contexts, for MPI_Finalize */

    /* References to the context: one for the user's communicator, dropped
     * when it is freed, and one per xchg request that uses the context
     * (xchg_context_hold); the last one dropped frees it, so the context
     * outlives the communicator until the last request is freed (MPI_Comm_free
     * lets pending operations complete normally). Atomic: no lock on a
     * request's way. user_freed: the communicator is gone. */
    atomic_int holds;
    int user_freed;
} xchg_context;

/* A request starts or stops using ctx; the last release after MPI_Comm_free
 * of its communicator frees the context. */
void xchg_context_hold(xchg_context *ctx);
void xchg_context_release(xchg_context *ctx);

/* The context a thread found last (context.c), so that a program calling on
 * one communicator again skips the attribute lookup (MPI_Comm_get_attr: a
 * hash lookup, the largest part of the path around a small `mpi` call).
 * Valid while no context went away since (`generation`, hot.h's
 * xchg_counters): a communicator freed and its handle reused for another
 * is looked up again. */
typedef struct xchg_found_context {
    MPI_Comm comm;
    xchg_context *ctx;
    unsigned generation;
} xchg_found_context;
extern _Thread_local xchg_found_context xchg_last_found;

/* The context this thread found last, if it is user_comm's (never
 * MPI_COMM_NULL's: that one is never found). */
static inline int xchg_context_found_last(MPI_Comm user_comm, xchg_context **out)
{
    *out = xchg_last_found.ctx;
    return *out && xchg_last_found.comm == user_comm &&
           xchg_last_found.generation ==
               atomic_load_explicit(&xchg_counters.context_generation, memory_order_acquire);
}

/* The context of `user_comm`, created on first use and ready (collective
 * on first use). Inline up to the thread's last context, which a program
 * calling on one communicator finds at every call (a call costs no function
 * of its own there); xchg_context_find does the rest. */
int xchg_context_find(MPI_Comm user_comm, xchg_context **ctx);
static XCHG_INLINE_PATH int xchg_context_get(MPI_Comm user_comm, xchg_context **out)
{
    xchg_progress(); /* every xchg call advances the outstanding tasks */
    if (xchg_context_found_last(user_comm, out) && (*out)->ready) return MPI_SUCCESS;
    return xchg_context_find(user_comm, out);
}

/* For a nonblocking call: the context, created on first use without
 * waiting for other ranks (its duplicate comes from MPI_Comm_idup); the
 * call's task makes it ready (xchg_context_ready) before anything else. */
int xchg_context_get_nonblocking(MPI_Comm user_comm, xchg_context **ctx);

/* Finish a context's creation: wait for its duplicate, learn the topology
 * (inside a task, through nonblocking calls only). */
int xchg_context_ready(xchg_context *ctx);

/*
 * An inner context: the context of a sub-communicator split from ctx->comm
 * by (color, key), for the inner exchanges of a composed algorithm
 * (compose.h). Built by a plan's init (collective over ctx->comm) and owned
 * by the plan, which frees it with xchg_context_inner_free; *out is NULL
 * where this rank is not a member (color MPI_UNDEFINED).
 * Unlike a user communicator's context it is not cached on its communicator
 * and does not duplicate it (the split is xchg's own already), and its
 * topology is one node (inner algorithms are flat). So a call never creates a
 * communicator: every communicator xchg makes is split from ctx->comm by
 * every rank in the same order, at plan time. (Creating them lazily inside
 * calls, rank by rank, deadlocked Open MPI 4.1's communicator-id agreement
 * under MPI_THREAD_MULTIPLE.)
 * Outside a task the split is MPI_Comm_split. Inside a task (a nonblocking
 * call building its plan), which may not block on other ranks, it is a
 * virtual group communicator (vcomm.h: an MPI_Iallgather of the colors and
 * keys, an MPI_Comm_idup of ctx->comm, ranks translated at point-to-point
 * calls), on which only flat algorithms run; the plan owning it may later
 * serve blocking calls too, unchanged.
 */
int xchg_context_inner(xchg_context *ctx, int color, int key, xchg_context **out);
void xchg_context_inner_free(xchg_context *inner);

/* Scratch memory accounted to the current call: malloc/free plus bookkeeping
 * of the peak, reported by XCHG_Comm_get_scratch_peak. */
void *xchg_scratch_alloc(xchg_context *ctx, size_t nbytes);
void xchg_scratch_free(xchg_context *ctx, void *ptr, size_t nbytes);

/* Phase timing: xchg_phase_begin_call resets; xchg_phase_end("inter-node")
 * adds the time since the previous boundary to that phase. */
void xchg_phase_begin_call(xchg_context *ctx);
void xchg_phase_end(xchg_context *ctx, const char *phase);

#endif
