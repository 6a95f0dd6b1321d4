/* locality, plan steps 5-6 (locality.h, locality.c): the g metadata
 * received (wildcard source, its own tag), then local work. */
#include <limits.h>
#include <string.h>

#include "locality.h"

typedef struct gmeta_in { /* a g metadata message received by a receiver */
    int region, from;
    int64_t *buf;
    int len;
} gmeta_in;

static int gmeta_cmp(const void *x, const void *y)
{
    const gmeta_in *p = x, *q = y;
    return (p->region > q->region) - (p->region < q->region);
}

int xchg_locality_plan_forward(loc_build *lb)
{
    int rc = MPI_SUCCESS;
    const xchg_args *a = lb->a;
    const int R = lb->R, mylocal = lb->mylocal;
    const int *receiver_local = lb->receiver_local;
    loc_state *st = lb->st;
    gmeta_in *gin = NULL;
    key3 *keys = NULL;
    int nexp = 0, ngin = 0;

    /* Step 5 (the receivers): one metadata message per source region. */
    for (int r = 0; r < R; r++) nexp += receiver_local[r] == mylocal;
    XCHG_ALLOC(gin, ((size_t)nexp + 1) * sizeof *gin);
    for (; ngin < nexp; ngin++) {
        MPI_Status status;
        int count;
        XCHG_CHECK(xchg_probe(MPI_ANY_SOURCE, TAG_GMETA, a->comm, &status));
        XCHG_CHECK(MPI_Get_count(&status, MPI_INT64_T, &count));
        gin[ngin].from = status.MPI_SOURCE;
        gin[ngin].len = count;
        gin[ngin].buf = malloc(((size_t)count + 1) * sizeof(int64_t));
        if (!gin[ngin].buf) {
            rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
            goto fail;
        }
        XCHG_CHECK(xchg_recv(gin[ngin].buf, count, MPI_INT64_T, status.MPI_SOURCE, TAG_GMETA,
                            a->comm, MPI_STATUS_IGNORE));
        gin[ngin].region = (int)gin[ngin].buf[0];
    }
    XCHG_CHECK(xchg_waitall(lb->ngreq, lb->greqs, MPI_STATUSES_IGNORE));
    lb->ngreq = 0;
    qsort(gin, (size_t)ngin, sizeof *gin, gmeta_cmp);
    {
        int64_t groff = 0, rsoff = 0;
        for (int k = 0; k < ngin; k++) {
            const int64_t *m = gin[k].buf;
            int64_t total = m[1], nb = m[2];
            PUSH(&lb->g_recv, lmsg, ((lmsg){gin[k].from, groff, total}));
            /* blocks by (q, p, j) */
            keys = malloc(((size_t)nb + 1) * sizeof *keys);
            if (!keys) {
                rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
                goto fail;
            }
            int64_t c = 3;
            for (int64_t b = 0; b < nb; b++) {
                keys[b] = (key3){m[c], m[c + 1], m[c + 2], c};
                c += 4 + 2 * m[c + 3];
            }
            qsort(keys, (size_t)nb, sizeof *keys, key3_cmp);
            for (int64_t b0 = 0; b0 < nb;) {
                int64_t b1 = b0, start = rsoff;
                while (b1 < nb && keys[b1].a == keys[b0].a) {
                    int64_t x = keys[b1].payload, nr = m[x + 3];
                    for (int64_t y = 0; y < nr; y++) {
                        int64_t src = groff + m[x + 4 + 2 * y], len = m[x + 5 + 2 * y];
                        copyrun *last = lb->copy.n ? (copyrun *)lb->copy.v + lb->copy.n - 1 : NULL;
                        if (last && last->src + last->len == src && last->dst + last->len == rsoff)
                            last->len += len;
                        else
                            PUSH(&lb->copy, copyrun, ((copyrun){src, rsoff, len}));
                        rsoff += len;
                    }
                    b1++;
                }
                if (rsoff > start)
                    PUSH(&lb->r_send, lmsg, ((lmsg){(int)keys[b0].a, start, rsoff - start}));
                b0 = b1;
            }
            free(keys);
            keys = NULL;
            groff += total;
        }
        XCHG_ALLOC(st->g_rbuf, (size_t)groff + 1);
        XCHG_ALLOC(st->r_sbuf, (size_t)rsoff + 1);
    }


fail:
    for (int k = 0; k < ngin; k++) free(gin[k].buf);
    free(gin);
    free(keys);
    return rc;
}

int xchg_locality_plan_arrivals(loc_build *lb)
{
    int rc = MPI_SUCCESS, nk;
    const xchg_args *a = lb->a;
    const xchg_topology *t = lb->t;
    const int A = lb->A, in = lb->in;
    const int *rocc = lb->rocc, *receiver_local = lb->receiver_local;
    loc_state *st = lb->st;
    key3 *keys = NULL;

    /* Step 6: the r receives, per source region (ascending), the blocks by
     * (source, occurrence), from that region's receiver in ours. */
    XCHG_ALLOC(keys, ((size_t)in + 1) * sizeof *keys);
    nk = 0;
    for (int i = 0; i < in; i++) {
        int s = a->neighbor.sources[i];
        if (a->recv.bytes[i] > 0 && t->node_of_rank[s] != A)
            keys[nk++] = (key3){t->node_of_rank[s], s, rocc[i], i};
    }
    qsort(keys, (size_t)nk, sizeof *keys, key3_cmp);
    {
        int64_t off = 0;
        for (int k0 = 0; k0 < nk;) {
            int k1 = k0;
            int64_t start = off;
            while (k1 < nk && keys[k1].a == keys[k0].a) {
                int i = (int)keys[k1].payload;
                PUSH(&lb->unpack, unpackrun, ((unpackrun){i, off}));
                off += a->recv.bytes[i];
                k1++;
            }
            PUSH(&lb->r_recv, lmsg, ((lmsg){xchg_rank_on_node(t, A, receiver_local[keys[k0].a]),
                                        start, off - start}));
            k0 = k1;
        }
        XCHG_ALLOC(st->r_rbuf, (size_t)off + 1);
    }


fail:
    free(keys);
    return rc;
}
