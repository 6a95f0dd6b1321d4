/* tuple_set: open-addressing set of 64-bit keys (tuple_set.h). */
#include "tuple_set.h"

#include <stdlib.h>

static size_t capacity_for(size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    return cap;
}

static uint64_t *new_table(size_t cap)
{
    uint64_t *t = malloc(cap * sizeof *t);
    if (t)
        for (size_t i = 0; i < cap; i++) t[i] = TUPLE_SET_EMPTY;
    return t;
}

int tuple_set_init(tuple_set *s, size_t expected)
{
    size_t cap = capacity_for(expected);
    s->slot = new_table(cap);
    s->mask = cap - 1;
    s->count = 0;
    return s->slot ? 0 : -1;
}

void tuple_set_free(tuple_set *s)
{
    free(s->slot);
    s->slot = NULL;
    s->mask = 0;
    s->count = 0;
}

static void place(uint64_t *t, size_t mask, uint64_t key)
{
    size_t i = (size_t)mix64(key) & mask;
    while (t[i] != TUPLE_SET_EMPTY) i = (i + 1) & mask;
    t[i] = key;
}

static int grow(tuple_set *s)
{
    size_t cap = 2 * (s->mask + 1);
    uint64_t *t = new_table(cap);
    if (!t) return -1;
    for (size_t i = 0; i <= s->mask; i++)
        if (s->slot[i] != TUPLE_SET_EMPTY) place(t, cap - 1, s->slot[i]);
    free(s->slot);
    s->slot = t;
    s->mask = cap - 1;
    return 0;
}

int tuple_set_insert(tuple_set *s, uint64_t key)
{
    if (2 * (s->count + 1) > s->mask + 1 && grow(s)) return -1;
    size_t i = (size_t)mix64(key) & s->mask;
    for (;;) {
        uint64_t k = s->slot[i];
        if (k == key) return 0;
        if (k == TUPLE_SET_EMPTY) break;
        i = (i + 1) & s->mask;
    }
    s->slot[i] = key;
    s->count++;
    return 1;
}

int tuple_set_contains(const tuple_set *s, uint64_t key)
{
    size_t i = (size_t)mix64(key) & s->mask;
    for (;;) {
        uint64_t k = s->slot[i];
        if (k == key) return 1;
        if (k == TUPLE_SET_EMPTY) return 0;
        i = (i + 1) & s->mask;
    }
}
