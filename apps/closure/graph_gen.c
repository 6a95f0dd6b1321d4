/* graph_gen: Erdos-Renyi, R-MAT and chain graphs (graph_gen.h). */
#include "graph_gen.h"

#include <stdlib.h>
#include <string.h>

#include "tuple_set.h"

int graph_kind_parse(const char *name, graph_kind *kind)
{
    if (!strcmp(name, "random")) *kind = GRAPH_RANDOM;
    else if (!strcmp(name, "powerlaw")) *kind = GRAPH_POWERLAW;
    else if (!strcmp(name, "chain")) *kind = GRAPH_CHAIN;
    else return -1;
    return 0;
}

const char *graph_kind_name(graph_kind kind)
{
    return kind == GRAPH_RANDOM ? "random" : kind == GRAPH_POWERLAW ? "powerlaw" : "chain";
}

typedef struct rng { uint64_t s; } rng;

static uint64_t next(rng *r) { return mix64(r->s += 0x9e3779b97f4a7c15ULL); }

/* Uniform in [0, n) (multiply-shift on the top 32 bits; n < 2^32). */
static uint32_t below(rng *r, uint32_t n) { return (uint32_t)(((next(r) >> 32) * n) >> 32); }

/* Uniform in [0, 1). */
static double unit(rng *r) { return (double)(next(r) >> 11) * 0x1.0p-53; }

static uint64_t rmat_edge(rng *r, int scale)
{
    uint32_t u = 0, v = 0;
    for (int b = 0; b < scale; b++) {
        double p = unit(r);
        int i = p >= 0.57 + 0.19, j = (p >= 0.57 && p < 0.57 + 0.19) || p >= 0.57 + 0.19 + 0.19;
        u = u << 1 | (uint32_t)i;
        v = v << 1 | (uint32_t)j;
    }
    return tuple_pack(u, v);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int graph_generate(graph_kind kind, uint32_t n, long m, uint64_t seed, uint64_t **edges,
                   long *m_out)
{
    *edges = NULL;
    *m_out = 0;
    if (kind == GRAPH_CHAIN) {
        long k = n > 0 ? (long)n - 1 : 0;
        uint64_t *e = malloc((size_t)(k ? k : 1) * sizeof *e);
        if (!e) return -1;
        for (long i = 0; i < k; i++) e[i] = tuple_pack((uint32_t)i, (uint32_t)(i + 1));
        *edges = e;
        *m_out = k;
        return 0;
    }
    if (m < 0 || (double)m > (double)n * ((double)n - 1)) return -2;
    uint64_t *e = malloc((size_t)(m ? m : 1) * sizeof *e);
    tuple_set seen;
    if (!e) return -1;
    if (tuple_set_init(&seen, (size_t)m)) {
        free(e);
        return -1;
    }
    rng r = {seed * 0xd1342543de82ef95ULL + 1};
    int scale = 0;
    while (scale < 32 && ((uint64_t)1 << scale) < n) scale++;
    long k = 0;
    for (long draws = 0; k < m && draws < 64 * m; draws++) {
        uint64_t t;
        if (kind == GRAPH_RANDOM) {
            t = tuple_pack(below(&r, n), below(&r, n));
        } else {
            t = rmat_edge(&r, scale);
            if ((t >> 32) >= n || (uint32_t)t >= n) continue;
        }
        if ((t >> 32) == (uint32_t)t) continue; /* self-loop */
        int fresh = tuple_set_insert(&seen, t);
        if (fresh < 0) {
            tuple_set_free(&seen);
            free(e);
            return -1;
        }
        if (fresh) e[k++] = t;
    }
    tuple_set_free(&seen);
    qsort(e, (size_t)k, sizeof *e, cmp_u64);
    *edges = e;
    *m_out = k;
    return 0;
}
