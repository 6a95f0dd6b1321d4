/*
 * ParLogNa, one round (x, z) of the schedule: its metadata message, its
 * data message and the bounce waves (the algorithm, and why the waves:
 * parlogna.c; the call's state: parlogna_round.h).
 */
#include "parlogna_round.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/error.h"

static int is_direct(int64_t i, int r)
{
    while (i % r == 0) i /= r;
    return i < r; /* a single non-zero digit */
}

/* Closed-form slot in T of a non-direct index (see the header comment). */
static int64_t slot_of(int64_t i, int r)
{
    int64_t top = 1;
    int dx = 0;
    while (top <= i / r) {
        top *= r;
        dx++;
    }
    return i - 1 - (int64_t)dx * (r - 1) - i / top;
}

/* Where the block at position k of the round is read from: the send buffer
 * at its lowest non-zero digit, T afterwards. */
static xchg_bundle_block send_block(const round_env *e, int k)
{
    const xchg_args *a = e->a;
    const int64_t i = e->s->index[k];
    xchg_bundle_block b = {.bytes = e->s->meta_out[k], .peer = -1};
    if (i % e->pw == 0) {
        b.peer = (int)((a->rank + i) % a->size);
        b.ptr = xchg_side_block_ptr(&a->send, b.peer);
    } else {
        b.ptr = e->T + slot_of(i, e->r) * e->smax;
    }
    return b;
}

/* Where it is received: its place in the receive buffer at its highest
 * non-zero digit, else the T slot of index `slot_index`. */
static xchg_bundle_block recv_block(const round_env *e, int k, int64_t slot_index)
{
    const xchg_args *a = e->a;
    const int64_t i = e->s->index[k];
    xchg_bundle_block b = {.bytes = e->s->meta_in[k], .peer = -1};
    if (i / (e->pw * e->r) == 0) {
        b.peer = (int)((a->rank - i % a->size + a->size) % a->size);
        b.ptr = xchg_side_block_ptr(&a->recv, b.peer);
    } else {
        b.ptr = e->T + slot_of(slot_index, e->r) * e->smax;
    }
    return b;
}

/* bounce=copy: the wave's blocks that are sent from T and received into
 * their own slot of T are copied out first (into *copy, their total size),
 * and sent from there. */
static int copy_out_bounced(const round_env *e, int n, char **copy, size_t *copy_bytes)
{
    xchg_bundle_block *out = e->s->send_blocks;
    const xchg_bundle_block *in = e->s->recv_blocks;
    size_t total = 0;
    for (int q = 0; q < n; q++)
        if (out[q].peer < 0 && in[q].peer < 0) total += (size_t)out[q].bytes;
    if (total == 0) return MPI_SUCCESS;
    *copy = xchg_scratch_alloc(e->ctx, total);
    if (!*copy) return xchg_error(MPI_ERR_NO_MEM, "parlogna: out of memory (%zu bytes)", total);
    *copy_bytes = total;
    char *pos = *copy;
    for (int q = 0; q < n; q++)
        if (out[q].peer < 0 && in[q].peer < 0) {
            memcpy(pos, out[q].ptr, (size_t)out[q].bytes);
            out[q].ptr = pos;
            pos += out[q].bytes;
        }
    return MPI_SUCCESS;
}

/* One wave: the blocks at positions ks[0..n) of the round as ONE message to
 * e->to and one from e->from. spare[q] >= 0 receives block q into the T slot
 * of index spare[q] instead of its own (bounce waves); spare may be NULL. */
/* Replay a recorded wave: post its two messages again, check what arrived. */
static int replay_wave(const round_env *e, wave_record *w)
{
    const xchg_args *a = e->a;
    int rc = MPI_SUCCESS;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status statuses[2];
    XCHG_CHECK(xchg_bundle_irecv(&w->in, e->from, TAG_DATA, a->comm, &reqs[0]));
    XCHG_CHECK(xchg_bundle_isend(&w->out, e->to, TAG_DATA, a->comm, &reqs[1]));
    XCHG_CHECK(xchg_waitall(2, reqs, statuses));
    return xchg_bundle_finish(e->ctx, &w->in, &statuses[0]); /* keeps the type */
fail:
    if (reqs[0] != MPI_REQUEST_NULL) MPI_Cancel(&reqs[0]);
    xchg_waitall(2, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

/* The record slot of this wave in a persistent plan (NULL: none, or no room). */
static wave_record *wave_slot(const round_env *e)
{
    wave_log *log = e->waves;
    if (!log) return NULL;
    if (log->replay) return log->next < log->count ? &log->wave[log->next++] : NULL;
    if (log->count == log->capacity) {
        int grown = log->capacity ? 2 * log->capacity : 16;
        wave_record *w = realloc(log->wave, (size_t)grown * sizeof *w);
        if (!w) return NULL; /* not recorded: this wave is rebuilt each start */
        log->wave = w;
        log->capacity = grown;
    }
    wave_record *w = &log->wave[log->count++];
    memset(w, 0, sizeof *w);
    return w;
}

static int exchange_wave(const round_env *e, const int *ks, int n, const int *spare)
{
    round_state *s = e->s;
    const xchg_args *a = e->a;
    int rc = MPI_SUCCESS;
    xchg_bundle out, in;
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status statuses[2];
    char *copy = NULL;
    size_t copy_bytes = 0;
    wave_record *record = wave_slot(e);
    if (record && record->reusable) return replay_wave(e, record);

    for (int q = 0; q < n; q++) {
        s->send_blocks[q] = send_block(e, ks[q]);
        s->recv_blocks[q] = recv_block(e, ks[q], spare ? spare[q] : s->index[ks[q]]);
    }
    rc = xchg_bundle_init(e->ctx, &in, &a->recv, s->recv_blocks, n, s->lens, s->displs, 0);
    if (rc == MPI_SUCCESS && e->bounce_copy) rc = copy_out_bounced(e, n, &copy, &copy_bytes);
    if (rc != MPI_SUCCESS) {
        xchg_bundle_finish(e->ctx, &in, NULL);
        return rc;
    }
    XCHG_CHECK(xchg_bundle_init(e->ctx, &out, &a->send, s->send_blocks, n, s->lens, s->displs, 1));
    int keep = record && !e->waves->replay && !copy && xchg_bundle_reusable(&in) &&
               xchg_bundle_reusable(&out);
    in.keep_type = out.keep_type = keep;
    XCHG_CHECK(xchg_bundle_irecv(&in, e->from, TAG_DATA, a->comm, &reqs[0]));
    XCHG_CHECK(xchg_bundle_isend(&out, e->to, TAG_DATA, a->comm, &reqs[1]));
    XCHG_CHECK(xchg_waitall(2, reqs, statuses));
    rc = xchg_bundle_finish(e->ctx, &in, &statuses[0]);
    xchg_bundle_finish(e->ctx, &out, NULL);
    xchg_scratch_free(e->ctx, copy, copy_bytes);
    if (keep) { /* a later start posts the same two messages */
        record->in = in;
        record->out = out;
        record->reusable = 1;
    }
    return rc;
fail:
    /* Nothing posted may outlive the buffers it uses. */
    if (reqs[0] != MPI_REQUEST_NULL) MPI_Cancel(&reqs[0]);
    xchg_waitall(2, reqs, MPI_STATUSES_IGNORE);
    in.keep_type = out.keep_type = 0;
    xchg_bundle_finish(e->ctx, &in, NULL);
    xchg_bundle_finish(e->ctx, &out, NULL);
    xchg_scratch_free(e->ctx, copy, copy_bytes);
    return rc;
}

/* One round (x, z): distance z * r^x. */
int xchg_parlogna_round(round_env *e, int z)
{
    const xchg_args *a = e->a;
    round_state *s = e->s;
    const int P = a->size, me = a->rank, r = e->r;
    const int64_t pw = e->pw, dist = pw * z;
    int rc = MPI_SUCCESS, n = 0, nforward = 0, nfirst = 0, nbounce = 0;

    e->to = (int)((me + dist) % P);
    e->from = (int)((me - dist % P + P) % P);
    /* The round's indices, those forwarded again later (received into T)
     * first: their sizes are the metadata. The others end in the receive
     * buffer, whose block sizes the receiver knows already. */
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = z * pw; i < P; i++) {
            if ((i / pw) % r != z || (i / (pw * r) != 0) != !pass) continue;
            s->index[n] = (int)i;
            s->meta_out[n++] = i % pw == 0 ? a->send.bytes[(me + i) % P] : s->held[i];
            nforward += !pass;
        }
    /* Phase 1: the sizes of the blocks forwarded (none in the rounds of the
     * highest digit, so r >= P-1 sends no metadata at all). */
    if (nforward > 0 && e->meta_log) {
        memcpy(s->meta_in, e->meta_log + e->meta_pos, (size_t)nforward * sizeof(int64_t));
        e->meta_pos += nforward;
    } else if (nforward > 0) {
        XCHG_CHECK(xchg_sendrecv(s->meta_out, nforward, MPI_INT64_T, e->to, TAG_META,
                                s->meta_in, nforward, MPI_INT64_T, e->from, TAG_META, a->comm,
                                MPI_STATUS_IGNORE));
    }
    for (int k = nforward; k < n; k++)
        s->meta_in[k] = a->recv.bytes[(me - s->index[k] + P) % P];

    /* Phase 2, first wave: every block but the bounced ones (sent from and
     * received into the same slot of T), as one message. The positions of
     * the first wave are gathered in s->spare, free until the bounce waves.
     * With bounce=copy the bounced blocks are copied out of T first and
     * travel in the first wave too. */
    for (int k = 0; k < n; k++) {
        int64_t i = s->index[k];
        int bounced = i % pw != 0 && i / (pw * r) != 0;
        if (bounced && !e->bounce_copy)
            s->bounced[nbounce++] = k;
        else
            s->spare[nfirst++] = k;
    }
    XCHG_CHECK(exchange_wave(e, s->spare, nfirst, NULL));
    for (int q = 0; q < nfirst; q++) {
        int k = s->spare[q];
        int64_t i = s->index[k];
        s->held[i] = i / (pw * r) != 0 ? s->meta_in[k] : -1;
    }

    /* Bounce waves: the bounced blocks are received into free slots (the
     * first wave's sends from T freed some), then moved into their own. */
    for (int done = 0; done < nbounce;) {
        int nspare = 0;
        for (int64_t j = 1; j < P && nspare < nbounce - done; j++)
            if (s->held[j] < 0 && !is_direct(j, r)) s->spare[nspare++] = (int)j;
        if (nspare == 0)
            return xchg_error(MPI_ERR_INTERN, "parlogna: no free slot for a bounced block");
        XCHG_CHECK(exchange_wave(e, s->bounced + done, nspare, s->spare));
        for (int q = 0; q < nspare; q++) {
            int k = s->bounced[done + q];
            int64_t i = s->index[k];
            if (s->meta_in[k] > 0)
                memcpy(e->T + slot_of(i, r) * e->smax, e->T + slot_of(s->spare[q], r) * e->smax,
                       (size_t)s->meta_in[k]);
            s->held[i] = s->meta_in[k];
        }
        done += nspare;
    }
fail:
    return rc;
}

