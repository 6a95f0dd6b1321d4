/* locality, plan steps 3-4 (locality.h, locality.c): an alltoall and an
 * alltoallv in the region; the g metadata sends, completed in step 5. */
#include <limits.h>
#include <string.h>

#include "locality.h"

int xchg_locality_plan_senders(loc_build *lb)
{
    int rc = MPI_SUCCESS;
    const xchg_args *a = lb->a;
    const xchg_topology *t = lb->t;
    const xchg_context *inner = lb->inner;
    const int R = lb->R, A = lb->A, nA = lb->nA, mylocal = lb->mylocal;
    const int *sender_local = lb->sender_local, *y_of = lb->y_of;
    loc_state *st = lb->st;
    vec *tolocal = NULL; /* per local rank: s metadata */
    int *scounts = NULL, *rcounts = NULL, *sdisp = NULL, *rdisp = NULL;
    int64_t *mbuf = NULL, *mrecv = NULL;

    /* Step 3: s metadata to the senders of the own region, and the s sends:
     * per region (ascending) {region, receiver, bytes, nblocks, blocks}. */
    XCHG_ALLOC(tolocal, (size_t)nA * sizeof *tolocal);
    for (int l = 0; l < nA; l++) tolocal[l] = (vec)VEC(int64_t);
    {
        int64_t off = 0;
        for (size_t k = 0; k < lb->groups.n; k++) {
            const group *g = (const group *)lb->groups.v + k;
            vec *m = &tolocal[sender_local[g->region]];
            PUSH(m, int64_t, g->region);
            PUSH(m, int64_t, y_of[g->region]);
            PUSH(m, int64_t, g->seg_bytes);
            PUSH(m, int64_t, g->nblocks);
            for (size_t x = g->meta_first; x < g->meta_end; x++)
                PUSH(m, int64_t, ((int64_t *)lb->blockmeta.v)[x]);
            if (g->seg_bytes > 0)
                PUSH(&lb->s_send, lmsg, ((lmsg){xchg_rank_on_node(t, A, sender_local[g->region]),
                                            off, g->seg_bytes}));
            off += g->seg_bytes;
        }
        /* the pack runs' offsets, relative to their segment, made absolute */
        int64_t base = 0;
        for (size_t k = 0; k < lb->groups.n; k++) {
            const group *g = (const group *)lb->groups.v + k;
            for (size_t p = g->pack_first; p < g->pack_end; p++) ((packrun *)lb->pack.v)[p].dst += base;
            base += g->seg_bytes;
        }
        XCHG_ALLOC(st->s_buf, (size_t)off + 1);
    }
    XCHG_ALLOC(scounts, 4 * ((size_t)nA + 1) * sizeof(int));
    rcounts = scounts + nA + 1;
    sdisp = rcounts + nA + 1;
    rdisp = sdisp + nA + 1;
    {
        size_t total = 0;
        for (int l = 0; l < nA; l++) total += tolocal[l].n;
        XCHG_ALLOC(mbuf, (total + 1) * sizeof(int64_t));
        total = 0;
        for (int l = 0; l < nA; l++) {
            scounts[l] = (int)tolocal[l].n;
            sdisp[l] = (int)total;
            if (tolocal[l].n) memcpy(mbuf + total, tolocal[l].v, tolocal[l].n * sizeof(int64_t));
            total += tolocal[l].n;
        }
    }
    XCHG_CHECK(xchg_alltoall(scounts, 1, MPI_INT, rcounts, 1, MPI_INT, inner->comm));
    {
        size_t total = 0;
        for (int l = 0; l < nA; l++) {
            rdisp[l] = (int)total;
            total += (size_t)rcounts[l];
        }
        XCHG_ALLOC(mrecv, (total + 1) * sizeof(int64_t));
    }
    XCHG_CHECK(xchg_alltoallv(mbuf, scounts, sdisp, MPI_INT64_T, mrecv, rcounts, rdisp,
                              MPI_INT64_T, inner->comm));

    /* Step 4 (the senders): per region B (ascending) the g send buffer is
     * the segments of the region's ranks by local rank; the s receives land
     * in it; the metadata for B's receiver lists every block with its rank
     * of origin and absolute byte runs. */
    {
        int64_t *cursor = NULL;
        XCHG_ALLOC(cursor, ((size_t)nA + 1) * sizeof *cursor);
        for (int l = 0; l < nA; l++) cursor[l] = rdisp[l];
        int64_t goff = 0;
        for (int B = 0; B < R; B++) {
            if (sender_local[B] != mylocal) continue;
            size_t head = lb->gmeta_out.n;
            int64_t total = 0, nblocks = 0, y = -1;
            PUSH(&lb->gmeta_out, int64_t, A);
            PUSH(&lb->gmeta_out, int64_t, 0); /* total, below */
            PUSH(&lb->gmeta_out, int64_t, 0); /* nblocks, below */
            for (int l = 0; l < nA; l++) {
                int64_t c = cursor[l], end = rdisp[l] + rcounts[l];
                if (c >= end || mrecv[c] != B) continue;
                int64_t seg = mrecv[c + 2], nb = mrecv[c + 3];
                y = mrecv[c + 1];
                c += 4;
                for (int64_t b = 0; b < nb; b++) {
                    int64_t q = mrecv[c], j = mrecv[c + 1], nr = mrecv[c + 2];
                    c += 3;
                    PUSH(&lb->gmeta_out, int64_t, q);
                    PUSH(&lb->gmeta_out, int64_t, xchg_rank_on_node(t, A, l));
                    PUSH(&lb->gmeta_out, int64_t, j);
                    PUSH(&lb->gmeta_out, int64_t, nr);
                    for (int64_t x = 0; x < nr; x++, c += 2) {
                        PUSH(&lb->gmeta_out, int64_t, total + mrecv[c]); /* in the g message */
                        PUSH(&lb->gmeta_out, int64_t, mrecv[c + 1]);
                    }
                    nblocks++;
                }
                if (seg > 0)
                    PUSH(&lb->s_recv, lmsg, ((lmsg){xchg_rank_on_node(t, A, l), goff + total, seg}));
                total += seg;
                cursor[l] = c;
            }
            ((int64_t *)lb->gmeta_out.v)[head + 1] = total;
            ((int64_t *)lb->gmeta_out.v)[head + 2] = nblocks;
            if (y < 0) {
                free(cursor);
                rc = xchg_error(MPI_ERR_INTERN, "locality: no receiver known for region %d", B);
                goto fail;
            }
            PUSH(&lb->g_send, lmsg, ((lmsg){(int)y, goff, total}));
            PUSH(&lb->gmeta_ends, size_t, lb->gmeta_out.n);
            PUSH(&lb->gmeta_peer, int, (int)y);
            goff += total;
        }
        free(cursor);
        XCHG_ALLOC(st->g_sbuf, (size_t)goff + 1);
    }
    XCHG_ALLOC(lb->greqs, (lb->gmeta_peer.n + 1) * sizeof(MPI_Request));
    for (size_t k = 0; k < lb->gmeta_peer.n; k++) {
        size_t from = k ? ((size_t *)lb->gmeta_ends.v)[k - 1] : 0, to = ((size_t *)lb->gmeta_ends.v)[k];
        XCHG_CHECK(MPI_Isend((int64_t *)lb->gmeta_out.v + from, (int)(to - from), MPI_INT64_T,
                             ((int *)lb->gmeta_peer.v)[k], TAG_GMETA, a->comm, &lb->greqs[lb->ngreq++]));
    }


fail:
    if (tolocal)
        for (int l = 0; l < nA; l++) free(tolocal[l].v);
    free(tolocal);
    free(scounts), free(mbuf), free(mrecv);
    return rc;
}
