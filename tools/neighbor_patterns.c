/*
 * The patterns of xchg-neighbor-bench (stencil, coarse: the top of
 * xchg_neighbor_bench.c says what they are) and the traffic a pattern moves
 * between nodes, its lower bound for the report.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "neighbor_bench.h"

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* ---- growable per-peer index lists -------------------------------------- */

typedef struct peer_lists { int64_t **idx; int *len, *cap; } peer_lists;

static void lists_init(peer_lists *l)
{
    l->idx = calloc(nranks, sizeof *l->idx);
    l->len = calloc(nranks, sizeof(int));
    l->cap = calloc(nranks, sizeof(int));
}

static void lists_add(peer_lists *l, int peer, int64_t g)
{
    if (l->len[peer] == l->cap[peer]) {
        l->cap[peer] = l->cap[peer] ? 2 * l->cap[peer] : 16;
        l->idx[peer] = realloc(l->idx[peer], l->cap[peer] * sizeof(int64_t));
    }
    l->idx[peer][l->len[peer]++] = g;
}

/* Sort and deduplicate each list; flatten into (ranks, counts, displs, idx). */
static int lists_flatten(peer_lists *l, int **ranks, int **counts, int **displs,
                         int64_t **idx, int *total)
{
    int n = 0;
    *total = 0;
    for (int p = 0; p < nranks; p++) {
        if (!l->len[p]) continue;
        qsort(l->idx[p], l->len[p], sizeof(int64_t), cmp_i64);
        int k = 0;
        for (int i = 0; i < l->len[p]; i++)
            if (i == 0 || l->idx[p][i] != l->idx[p][k - 1]) l->idx[p][k++] = l->idx[p][i];
        l->len[p] = k;
        n++;
        *total += k;
    }
    *ranks = malloc((n + 1) * sizeof(int));
    *counts = malloc((n + 1) * sizeof(int));
    *displs = malloc((n + 1) * sizeof(int));
    *idx = malloc((*total + 1) * sizeof(int64_t));
    int i = 0, off = 0;
    for (int p = 0; p < nranks; p++) {
        if (!l->len[p]) continue;
        (*ranks)[i] = p;
        (*counts)[i] = l->len[p];
        (*displs)[i] = off;
        memcpy(*idx + off, l->idx[p], l->len[p] * sizeof(int64_t));
        off += l->len[p];
        i++;
        free(l->idx[p]);
    }
    free(l->idx);
    free(l->len);
    free(l->cap);
    return n;
}

/* ---- the patterns -------------------------------------------------------- */

static void grid_shape(int *px, int *py)
{
    *px = (int)sqrt((double)nranks);
    while (nranks % *px) (*px)--;
    *py = nranks / *px;
}

/* First row (column) of block b of `parts` blocks over n points. */
static int block_start(int n, int parts, int b) { return (int)((int64_t)b * n / parts); }

/* The block holding point i: the last b with block_start(b) <= i. */
static int block_of(int n, int parts, int i)
{
    int b = (int)((int64_t)i * parts / n);
    while (b + 1 < parts && block_start(n, parts, b + 1) <= i) b++;
    while (b > 0 && block_start(n, parts, b) > i) b--;
    return b;
}

/* Owner of grid point (i, j) in px x py blocks of an n x n grid. */
static int owner(int n, int px, int py, int i, int j)
{
    return block_of(n, px, i) * py + block_of(n, py, j);
}

static void make_stencil(const options *o, peer_lists *send, peer_lists *recv)
{
    int px, py, n = o->n, w = o->width;
    grid_shape(&px, &py);
    int bi = rank / py, bj = rank % py;
    int i0 = block_start(n, px, bi), i1 = block_start(n, px, bi + 1);
    int j0 = block_start(n, py, bj), j1 = block_start(n, py, bj + 1);
    for (int i = i0; i < i1; i++)
        for (int j = j0; j < j1; j++)
            for (int di = -w; di <= w; di++)
                for (int dj = -w; dj <= w; dj++) {
                    int a = i + di, b = j + dj;
                    if (a < 0 || b < 0 || a >= n || b >= n) continue;
                    int q = owner(n, px, py, a, b);
                    if (q == rank) continue;
                    lists_add(recv, q, (int64_t)a * n + b); /* I need (a, b) */
                    lists_add(send, q, (int64_t)i * n + j); /* q needs (i, j) */
                }
}

static int coarse_edge(const options *o, int s, int d)
{
    if (s == d) return 0;
    return (double)(mix(o->seed ^ ((uint64_t)s << 32 | (uint32_t)d)) % 1000000) <
           o->fraction * 1e6;
}

/* The values of s that d receives: a random subset of the first half of s's
 * range (so ranks of a region overlap). */
static void coarse_subset(const options *o, int s, int d, peer_lists *l, int peer)
{
    int m = o->count, half = m > 1 ? m / 2 : 1;
    uint64_t h = mix(o->seed * 31 + (uint64_t)s * 1000003 + (uint64_t)d);
    int k = 1 + (int)(h % (uint64_t)half);
    for (int t = 0; t < k; t++)
        lists_add(l, peer, (int64_t)s * m + (int64_t)(mix(h + t) % (uint64_t)half));
}

static void make_coarse(const options *o, peer_lists *send, peer_lists *recv)
{
    for (int q = 0; q < nranks; q++) {
        if (coarse_edge(o, rank, q)) coarse_subset(o, rank, q, send, q);
        if (coarse_edge(o, q, rank)) coarse_subset(o, q, rank, recv, q);
    }
}

void make_pattern(const options *o, pattern *p)
{
    peer_lists send, recv;
    lists_init(&send);
    lists_init(&recv);
    if (strcmp(o->pattern, "stencil") == 0) make_stencil(o, &send, &recv);
    else make_coarse(o, &send, &recv);
    p->out = lists_flatten(&send, &p->dst, &p->scount, &p->sdispl, &p->sindex, &p->stotal);
    p->in = lists_flatten(&recv, &p->src, &p->rcount, &p->rdispl, &p->rindex, &p->rtotal);
}

/* ---- the pattern's traffic between nodes ---------------------------------- */

/* Maxima over nodes of the bytes crossing between nodes of q ranks. */
node_traffic pattern_traffic(const pattern *p, int q)
{
    node_traffic t = {0, 0, 0, 0};
    if (q < 1) return t;
    int nodes = (nranks + q - 1) / q, me = rank / q;
    long long *v = calloc(4 * (size_t)nodes, sizeof(long long)), *sum = v + 2 * nodes;
    long long *out = v, *in = v + nodes; /* [out | in] of this rank, then the sums */
    for (int i = 0; i < p->out; i++) /* what leaves my node arrives at another */
        if (p->dst[i] / q != me) {
            out[me] += 8LL * p->scount[i];
            in[p->dst[i] / q] += 8LL * p->scount[i];
        }
    MPI_Allreduce(v, sum, 2 * nodes, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int n = 0; n < nodes; n++) {
        if (sum[n] > t.out) t.out = sum[n];
        if (sum[nodes + n] > t.in) t.in = sum[nodes + n];
    }
    /* Deduplicated: each value once per (destination node); this rank owns
     * every value it sends, so it counts them all. The sent lists are sorted
     * per destination; a value's destination nodes are found by a scan. */
    memset(v, 0, 4 * (size_t)nodes * sizeof(long long));
    int64_t *seen = malloc(((size_t)nodes + 1) * sizeof(int64_t));
    for (int n = 0; n < nodes; n++) seen[n] = -1;
    int64_t *all = malloc(((size_t)p->stotal + 1) * sizeof(int64_t));
    int *node_of = malloc(((size_t)p->stotal + 1) * sizeof(int));
    for (int i = 0, k = 0; i < p->out; i++)
        for (int j = 0; j < p->scount[i]; j++, k++) {
            all[k] = p->sindex[p->sdispl[i] + j];
            node_of[k] = p->dst[i] / q;
        }
    /* sort (value, node) pairs by value with an index sort */
    int *order = malloc(((size_t)p->stotal + 1) * sizeof(int));
    for (int k = 0; k < p->stotal; k++) order[k] = k;
    for (int gap = p->stotal / 2; gap > 0; gap /= 2) /* shell sort: no qsort context */
        for (int a = gap; a < p->stotal; a++)
            for (int b = a; b >= gap && all[order[b - gap]] > all[order[b]]; b -= gap) {
                int tmp = order[b];
                order[b] = order[b - gap];
                order[b - gap] = tmp;
            }
    for (int k = 0; k < p->stotal; k++) {
        int n = node_of[order[k]];
        int64_t g = all[order[k]];
        if (n == me || seen[n] == g) continue;
        seen[n] = g;
        out[me] += 8;
        in[n] += 8;
    }
    MPI_Allreduce(v, sum, 2 * nodes, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int n = 0; n < nodes; n++) {
        if (sum[n] > t.out_dedup) t.out_dedup = sum[n];
        if (sum[nodes + n] > t.in_dedup) t.in_dedup = sum[nodes + n];
    }
    free(order);
    free(node_of);
    free(all);
    free(seen);
    free(v);
    return t;
}
