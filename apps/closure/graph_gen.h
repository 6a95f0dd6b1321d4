/*
 * graph_gen: the deterministic generated graphs of xchg-closure. Every rank
 * calls graph_generate with the same arguments and gets the same edge list
 * (from a splitmix64 stream seeded by `seed`), then keeps its partition.
 *
 *   random    Erdos-Renyi G(n, m): m distinct directed edges (u, v), u != v,
 *             uniform over all n (n - 1) pairs.
 *   powerlaw  R-MAT (Chakrabarti, Zhan, Faloutsos, SDM 2004) with the
 *             Graph500 probabilities a = 0.57, b = c = 0.19, d = 0.05 on
 *             2^ceil(log2 n) ids, ids >= n, self-loops and repeats redrawn:
 *             skewed in- and out-degrees, so the exchanges of xchg-closure
 *             send very different counts to different ranks.
 *   chain     the path 0 -> 1 -> ... -> n-1 (m = n - 1 whatever is asked):
 *             its closure takes n - 1 iterations with small deltas.
 *
 * Edges are packed as tuple_pack(source, target) and returned sorted (so by
 * source), distinct, without self-loops.
 */
#ifndef XCHG_CLOSURE_GRAPH_GEN_H
#define XCHG_CLOSURE_GRAPH_GEN_H

#include <stdint.h>

typedef enum graph_kind { GRAPH_RANDOM, GRAPH_POWERLAW, GRAPH_CHAIN } graph_kind;

/* 0 and *kind set if name is "random", "powerlaw" or "chain", else -1. */
int graph_kind_parse(const char *name, graph_kind *kind);
const char *graph_kind_name(graph_kind kind);

/* The edge list of the graph (malloc'ed, the caller frees it) in *edges and
 * its length in *m_out: m edges, or fewer when R-MAT's skew makes new
 * distinct edges too rare (after 64 m draws), n - 1 for the chain.
 * Returns 0, -1 when out of memory, -2 when m > n (n - 1). */
int graph_generate(graph_kind kind, uint32_t n, long m, uint64_t seed, uint64_t **edges,
                   long *m_out);

#endif
