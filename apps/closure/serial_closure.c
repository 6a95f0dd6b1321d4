/* serial_closure: BFS from every vertex (serial_closure.h). */
#include "serial_closure.h"

#include <stdlib.h>

#include "tuple_set.h"

int serial_closure(uint32_t n, const uint64_t *edges, long m, uint64_t *count,
                   uint64_t *digest)
{
    long *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *stamp = calloc((size_t)n + 1, sizeof *stamp); /* last BFS (x + 1) that saw it */
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    if (!start || !stamp || !queue) {
        free(start);
        free(stamp);
        free(queue);
        return -1;
    }
    for (long i = 0; i < m; i++) start[(edges[i] >> 32) + 1]++;
    for (uint32_t v = 0; v < n; v++) start[v + 1] += start[v];
    uint64_t c = 0, d = 0;
    for (uint32_t x = 0; x < n; x++) {
        size_t head = 0, tail = 0;
        uint32_t mark = x + 1;
        /* Sources of the search: x's successors, so x itself only by a cycle. */
        for (long i = start[x]; i < start[x + 1]; i++) {
            uint32_t z = (uint32_t)edges[i];
            if (stamp[z] != mark) {
                stamp[z] = mark;
                queue[tail++] = z;
            }
        }
        while (head < tail) {
            uint32_t y = queue[head++];
            c++;
            d += tuple_digest(tuple_pack(x, y));
            for (long i = start[y]; i < start[y + 1]; i++) {
                uint32_t z = (uint32_t)edges[i];
                if (stamp[z] != mark) {
                    stamp[z] = mark;
                    queue[tail++] = z;
                }
            }
        }
    }
    free(start);
    free(stamp);
    free(queue);
    *count = c;
    *digest = d;
    return 0;
}
