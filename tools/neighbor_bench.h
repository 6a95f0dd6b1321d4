/*
 * What the two files of xchg-neighbor-bench share (xchg_neighbor_bench.c:
 * the options, the timed runs and the report; neighbor_patterns.c: the
 * generated patterns and their traffic between nodes).
 */
#ifndef XCHG_TOOLS_NEIGHBOR_BENCH_H
#define XCHG_TOOLS_NEIGHBOR_BENCH_H

#include <stdint.h>

typedef struct options {
    const char *pattern;
    int n, width, count, starts, warmup, header, node_size;
    double fraction;
    uint64_t seed;
    const char *csv;
} options;

/* This rank's side of the pattern: per destination the global indices of
 * the values it sends (owned by this rank), per source those it receives. */
typedef struct pattern {
    int out, in;
    int *dst, *src;
    int *scount, *sdispl, *rcount, *rdispl;
    int64_t *sindex, *rindex; /* [stotal], [rtotal] */
    int stotal, rtotal;
} pattern;

typedef struct node_traffic { long long out, in, out_dedup, in_dedup; } node_traffic;

extern int rank, nranks; /* of MPI_COMM_WORLD */

/* The value sent for global index g: every received value is checked
 * against it, without a reference run. */
static inline double value_of(int64_t g) { return (double)g * 0.25 + 1.0; }

/* This rank's side of the pattern o->pattern (every rank derives the same
 * global pattern from o->seed). */
void make_pattern(const options *o, pattern *p);

/* Maxima over nodes of q consecutive ranks of the bytes the pattern moves
 * between nodes, per destination rank and per destination node
 * (collective over MPI_COMM_WORLD). */
node_traffic pattern_traffic(const pattern *p, int q);

#endif
