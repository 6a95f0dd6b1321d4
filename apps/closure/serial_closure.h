/*
 * serial_closure: the reference for xchg-closure's check. The transitive
 * closure of a whole graph by a breadth-first search from every vertex:
 * path(x, z) for every z reachable from x by one or more edges (so path(x, x)
 * only on a cycle). Returns its size and its order-independent digest (the
 * sum of tuple_digest over its tuples, mod 2^64), the same quantities the
 * distributed closure reduces. O(n (n + m)) time, O(n + m) memory.
 */
#ifndef XCHG_CLOSURE_SERIAL_CLOSURE_H
#define XCHG_CLOSURE_SERIAL_CLOSURE_H

#include <stdint.h>

/* edges: m packed (source, target) pairs sorted by source (graph_generate's).
 * Returns 0, or -1 when out of memory. */
int serial_closure(uint32_t n, const uint64_t *edges, long m, uint64_t *count,
                   uint64_t *digest);

#endif
