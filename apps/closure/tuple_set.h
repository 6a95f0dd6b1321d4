/*
 * tuple_set: a set of 64-bit keys (a (source, target) vertex pair packed as
 * source << 32 | target) for xchg-closure's deduplication: open addressing
 * with linear probing, a power-of-two table at most half full, grown by
 * doubling (amortised O(1) insert; 16 bytes of table per key at worst).
 * TUPLE_SET_EMPTY (all ones) marks a free slot and is never a key: vertex
 * ids are below 2^32 - 1.
 */
#ifndef XCHG_CLOSURE_TUPLE_SET_H
#define XCHG_CLOSURE_TUPLE_SET_H

#include <stddef.h>
#include <stdint.h>

#define TUPLE_SET_EMPTY UINT64_MAX

typedef struct tuple_set {
    uint64_t *slot;
    size_t mask; /* capacity - 1 */
    size_t count;
} tuple_set;

/* A 64-bit mixer (the splitmix64 finaliser): hashing, ownership, digests. */
static inline uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The pair (source, target) as a key, and its term in the order-independent
 * digest of a relation (the sum of the terms over its tuples, mod 2^64). */
static inline uint64_t tuple_pack(uint32_t source, uint32_t target)
{
    return (uint64_t)source << 32 | target;
}
static inline uint64_t tuple_digest(uint64_t key) { return mix64(key ^ 0x5851f42d4c957f2dULL); }

/* Returns 0, or -1 when out of memory. */
int tuple_set_init(tuple_set *s, size_t expected);
void tuple_set_free(tuple_set *s);
/* 1 if key was new (now inserted), 0 if it was there, -1 if out of memory. */
int tuple_set_insert(tuple_set *s, uint64_t key);
/* 1 if key is in the set, 0 if not. */
int tuple_set_contains(const tuple_set *s, uint64_t key);

#endif
