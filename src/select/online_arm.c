/*
 * Arming the fast path (online_fast.c's header comment says what it takes
 * and when): what decided the last selection of a collective (note_*), the
 * call that arms the path after it, with its normalized arguments kept for
 * a choice other than `mpi`, and the release of the calls the path took
 * into their signature.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/device.h"
#include "online.h"
#include "online_state.h"

static void note(xchg_context *ctx, xchg_coll coll, int ready)
{
    if (xchg_online_state(ctx)) {
        ctx->online->fast_ready[coll] = ready;
        ctx->online->measure_now = 0;
    }
}

void xchg_online_note_explicit(xchg_context *ctx, xchg_coll coll, int by_environment)
{
    note(ctx, coll, by_environment ? FAST_EXPLICIT_ENV : FAST_EXPLICIT);
}

void xchg_online_note_automatic(xchg_context *ctx, xchg_coll coll)
{
    note(ctx, coll, FAST_AUTOMATIC);
}

void xchg_online_disarm(xchg_context *ctx, xchg_coll coll)
{
    if (ctx->online) xchg_online_fast_release(ctx->online, coll, 1);
}

void xchg_online_fast_release(xchg_online *o, xchg_coll coll, int disarm)
{
    xchg_online_fast *f = &o->fast[coll];
    if (f->armed && f->sig >= 0 && f->calls) {
        xchg_online_signature *s = &o->sig[f->sig];
        if (s->id == f->id) { /* not replaced (insert releases it first) */
            s->calls += f->calls;
            if (f->last_use > s->last_use) s->last_use = f->last_use;
        }
    }
    f->calls = 0;
    if (disarm) f->armed = 0;
}

static int is_mpi(const xchg_choice *c)
{
    return c->algo && strcmp(c->algo->name, "mpi") == 0;
}

int xchg_online_agree_sampled(void)
{
    const char *env = getenv("XCHG_AGREE");
    return !env || !*env || strcmp(env, "sampled") == 0;
}

/* XCHG_DEVICE=agree: the normal path agrees on device buffers at every
 * call (device.h), so a choice other than `mpi` never goes the fast path. */
static int device_agrees(void)
{
    const char *env = getenv("XCHG_DEVICE");
    return env && strcmp(env, "agree") == 0;
}

/* allgatherv's inputs of selection (select.c's): the mean contribution and
 * the largest, in bytes. */
void xchg_online_allgatherv_sizes(const int *counts, int size, int64_t type_size, int64_t *mean,
                             int64_t *largest)
{
    int64_t total = 0;
    *largest = 0;
    for (int p = 0; p < size; p++) {
        int64_t b = (int64_t)counts[p] * type_size;
        total += b;
        if (b > *largest) *largest = b;
    }
    *mean = total / (size > 0 ? size : 1);
}

/* Keep the normalized arguments of a call (not in place, host memory, no
 * held types) for the next calls of the same shape: the per-peer arrays of
 * both sides copied into f->kept. 0 when they cannot be kept. */
static int predefined(MPI_Datatype type)
{
    int ints, addrs, types, combiner;
    return MPI_Type_get_envelope(type, &ints, &addrs, &types, &combiner) == MPI_SUCCESS &&
           combiner == MPI_COMBINER_NAMED;
}

static int keep_args(xchg_online_fast *f, const xchg_args *args)
{
    /* predefined datatypes only: the kept description (extent, bounds) of a
     * derived type would outlive a handle freed and reused for another */
    if (args->in_place || args->on_device || args->num_held || args->owned_copy ||
        args->send.types || args->recv.types || !args->send.counts || !args->recv.counts ||
        !predefined(args->send.type.type) || !predefined(args->recv.type.type))
        return 0;
    size_t p = (size_t)args->size;
    /* each side: offsets and bytes (int64_t), then counts (int); the second
     * side's int64_t arrays aligned (an odd P left them 4 bytes off) */
    size_t align = _Alignof(int64_t);
    size_t per_side = (p * (2 * sizeof(int64_t) + sizeof(int)) + align - 1) / align * align;
    size_t need = 2 * per_side;
    if (f->kept_size < need) {
        char *mem = realloc(f->kept, need);
        if (!mem) return 0;
        f->kept = mem;
        f->kept_size = need;
    }
    f->args = *args;
    f->args.owned = f->args.owned_copy = NULL;
    f->args.owned_types = NULL;
    f->args.held_types = NULL;
    memset(&f->args.neighbor, 0, sizeof f->args.neighbor); /* dense collectives only */
    char *mem = f->kept;
    xchg_side *sides[2] = {&f->args.send, &f->args.recv};
    const xchg_side *from[2] = {&args->send, &args->recv};
    for (int k = 0; k < 2; k++) {
        sides[k]->offsets = memcpy(mem, from[k]->offsets, p * sizeof(int64_t));
        sides[k]->bytes = memcpy(mem + p * sizeof(int64_t), from[k]->bytes, p * sizeof(int64_t));
        sides[k]->counts = memcpy(mem + 2 * p * sizeof(int64_t), from[k]->counts, p * sizeof(int));
        mem += per_side;
    }
    return 1;
}

void xchg_online_note_call(xchg_context *ctx, const xchg_args *args, const xchg_choice *choice)
{
    xchg_online *o = ctx->online;
    xchg_coll coll = args->coll;
    if (!o || coll == XCHG_NEIGHBOR_ALLTOALLV) return;
    xchg_online_fast *f = &o->fast[coll];
    int ready = o->fast_ready[coll];
    xchg_online_fast_release(o, coll, 1);
    o->fast_ready[coll] = FAST_NONE;
    if (ready == FAST_NONE) return;
    if (!xchg_online_is_explicit(ready) && xchg_coll_is_v(coll) && !xchg_online_agree_sampled())
        return;
    if (!is_mpi(choice)) { /* the kept arguments: alltoall, alltoallv, allgather */
        if (ready == FAST_EXPLICIT_ENV || args->on_device || device_agrees() ||
            (coll != XCHG_ALLTOALL && coll != XCHG_ALLTOALLV && coll != XCHG_ALLGATHER) ||
            !keep_args(f, args))
            return;
    } else if ((coll == XCHG_ALLTOALLW && (args->in_place || args->size == 1)) ||
               (coll == XCHG_ALLGATHERV && args->size == 1)) {
        return;
    }
#ifdef OPEN_MPI
    /* mpi.c sends these to MPI_Alltoallv (Open MPI 4.1's MPI_Alltoall bug) */
    if (is_mpi(choice) && coll == XCHG_ALLTOALL && !args->in_place &&
        args->send.type.type != args->recv.type.type)
        return;
#endif
    f->sig = ready;
    f->id = ready >= 0 ? o->sig[ready].id : 0;
    f->winner = ready >= 0 ? o->sig[ready].winner : -1; /* what the call ran */
    f->calls_left = 0;
    f->timed = 0;
    if (ready >= 0 && o->sig[ready].run_left > 0) { /* the rest of a timed run */
        f->calls_left = (unsigned)o->sig[ready].run_left;
        f->timed = 1;
    } else if (ready >= 0) { /* decided (xchg_online_choose): until its next timed call */
        const xchg_online_signature *s = &o->sig[ready];
        unsigned long due = s->next_check < s->reexplore_at ? s->next_check : s->reexplore_at;
        f->calls_left = due > s->calls ? (unsigned)(due - s->calls) : 0;
    }
    f->accounted = ctx->accounted_calls - 1; /* its first call says `mpi` (account) */
    f->in_place = args->in_place;
    f->sendcount = args->send.counts ? args->send.counts[0] : 0;
    f->recvcount = args->recv.counts ? args->recv.counts[0] : 0;
    f->sendtype = args->send.type.type;
    f->recvtype = args->recv.type.type;
    if (coll == XCHG_ALLGATHERV) {
        f->recvcount = args->recv.counts[args->rank];
        f->recv_type_size = args->recv.type.size;
        xchg_online_allgatherv_sizes(args->recv.counts, args->size, f->recv_type_size, &f->bytes,
                         &f->max_block_bytes);
    }
    f->choice = *choice;
    f->is_mpi = is_mpi(choice);
    f->armed = 1;
}
