/* locality, plan step 0 (locality.h, locality.c): local, no messages. */
#include <limits.h>
#include <string.h>

#include "locality.h"

/* Offsets of each block's indices in an xchg_args gindex array. */
static int64_t *index_starts(int n, const int *counts)
{
    int64_t *s = malloc(((size_t)n + 1) * sizeof *s);
    if (!s) return NULL;
    s[0] = 0;
    for (int i = 0; i < n; i++) s[i + 1] = s[i] + counts[i];
    return s;
}

int xchg_locality_plan_segments(loc_build *lb)
{
    int rc = MPI_SUCCESS;
    const xchg_args *a = lb->a;
    const xchg_topology *t = lb->t;
    const int A = lb->A, dedup = lb->dedup, out = lb->out;
    const int64_t esz = lb->esz;
    const int *socc = lb->socc;
    int64_t *sstart = NULL, *pos = NULL;
    key3 *keys = NULL;

    /* Step 0 (local): the outgoing inter-region blocks by (region, index);
     * per region its segment (distinct values with dedup), the pack runs
     * that fill it, and per block the byte runs of its values in it. */
    if (dedup && !(sstart = index_starts(out, a->send.counts))) {
        rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
        goto fail;
    }
    XCHG_ALLOC(keys, ((size_t)out + 1) * sizeof *keys);
    int nk = 0;
    for (int i = 0; i < out; i++) {
        int d = a->neighbor.destinations[i];
        if (a->send.bytes[i] > 0 && t->node_of_rank[d] != A)
            keys[nk++] = (key3){t->node_of_rank[d], i, 0, i};
    }
    qsort(keys, (size_t)nk, sizeof *keys, key3_cmp);
    for (int k0 = 0; k0 < nk;) {
        int k1 = k0;
        while (k1 < nk && keys[k1].a == keys[k0].a) k1++;
        group g = {.region = (int)keys[k0].a, .nblocks = k1 - k0, .meta_first = lb->blockmeta.n,
                   .pack_first = lb->pack.n};
        int64_t seg_first_pack = (int64_t)lb->pack.n;
        if (!dedup) {
            int64_t off = 0;
            for (int k = k0; k < k1; k++) {
                int i = (int)keys[k].payload;
                PUSH(&lb->pack, packrun, ((packrun){i, 0, a->send.counts[i], off}));
                PUSH(&lb->blockmeta, int64_t, a->neighbor.destinations[i]);
                PUSH(&lb->blockmeta, int64_t, socc[i]);
                PUSH(&lb->blockmeta, int64_t, 1);
                PUSH(&lb->blockmeta, int64_t, off);
                PUSH(&lb->blockmeta, int64_t, a->send.bytes[i]);
                off += a->send.bytes[i];
            }
            g.seg_bytes = off;
        } else {
            /* Every value to the region, in block order (ord); its first
             * occurrence per index gets the next position in the segment. */
            int64_t nval = 0;
            for (int k = k0; k < k1; k++) nval += a->send.counts[keys[k].payload];
            key3 *v = malloc(((size_t)nval + 1) * sizeof *v);
            int64_t *first = malloc(((size_t)nval + 1) * sizeof *first);
            if (!v || !first) {
                free(v), free(first);
                rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
                goto fail;
            }
            int64_t ord = 0;
            for (int k = k0; k < k1; k++) {
                int i = (int)keys[k].payload;
                for (int e = 0; e < a->send.counts[i]; e++, ord++)
                    v[ord] = (key3){a->neighbor.send_gindex[sstart[i] + e], ord, 0, ord};
            }
            qsort(v, (size_t)nval, sizeof *v, key3_cmp);
            for (int64_t x = 0; x < nval; x++) /* representative: the group's first ord */
                first[v[x].payload] = (x > 0 && v[x - 1].a == v[x].a) ? first[v[x - 1].payload]
                                                                       : v[x].payload;
            free(v);
            free(pos);
            pos = malloc(((size_t)nval + 1) * sizeof *pos);
            if (!pos) {
                free(first);
                rc = xchg_error(MPI_ERR_NO_MEM, "locality: out of memory");
                goto fail;
            }
            int64_t nuniq = 0;
            ord = 0;
            for (int k = k0; k < k1; k++) {
                int i = (int)keys[k].payload;
                int64_t nb_runs_at = -1;
                for (int e = 0; e < a->send.counts[i]; e++, ord++) {
                    if (first[ord] == ord) { /* a new value: pack it */
                        pos[ord] = nuniq++;
                        packrun *last = lb->pack.n > (size_t)seg_first_pack
                                            ? (packrun *)lb->pack.v + lb->pack.n - 1 : NULL;
                        if (last && last->block == i && last->elem + last->n == e &&
                            last->dst + last->n * esz == pos[ord] * esz)
                            last->n++;
                        else
                            PUSH(&lb->pack, packrun, ((packrun){i, e, 1, pos[ord] * esz}));
                    } else {
                        pos[ord] = pos[first[ord]];
                    }
                }
                /* the block's byte runs */
                PUSH(&lb->blockmeta, int64_t, a->neighbor.destinations[i]);
                PUSH(&lb->blockmeta, int64_t, socc[i]);
                PUSH(&lb->blockmeta, int64_t, 0);
                nb_runs_at = (int64_t)lb->blockmeta.n - 1;
                int64_t o0 = ord - a->send.counts[i];
                for (int64_t x = o0; x < ord; x++) {
                    int64_t *bm = lb->blockmeta.v;
                    if (x > o0 && bm[lb->blockmeta.n - 2] + bm[lb->blockmeta.n - 1] == pos[x] * esz) {
                        bm[lb->blockmeta.n - 1] += esz;
                    } else {
                        PUSH(&lb->blockmeta, int64_t, pos[x] * esz);
                        PUSH(&lb->blockmeta, int64_t, esz);
                        ((int64_t *)lb->blockmeta.v)[nb_runs_at]++;
                    }
                }
            }
            free(first);
            g.seg_bytes = nuniq * esz;
        }
        g.meta_end = lb->blockmeta.n;
        g.pack_end = lb->pack.n;
        PUSH(&lb->groups, group, g);
        k0 = k1;
    }
    free(keys);
    keys = NULL;


fail:
    free(keys);
    free(sstart);
    free(pos);
    return rc;
}
