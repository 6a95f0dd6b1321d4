/*
 * Count patterns for alltoallv, displacement layouts and buffer contents.
 * Counts come from a hash of (seed, sender, receiver), so every rank computes
 * its receive counts without communication.
 */
#include <math.h>
#include <string.h>

#include "harness.h"

const char *const pattern_names[NUM_PATTERNS] = {"uniform", "zeros", "hot_peer", "power_law",
                                                 "normal",  "sparse", "large"};
const char *const displ_names[NUM_DISPL] = {"packed", "reverse_gaps"};

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t h_hash(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return splitmix(splitmix(splitmix(splitmix(a) ^ b) ^ c) ^ d);
}

double h_unit(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return ((double)(h_hash(a, b, c, d) >> 11) + 1.0) / 9007199254740992.0;
}

/* Bytes above the eager limit of both MPIs (64 KiB), in elements. */
static int large_elements(int64_t elem_size)
{
    return (int)((66000 + elem_size - 1) / elem_size);
}

int pattern_count(int pattern, uint64_t seed, int sender, int receiver, int size,
                  int64_t elem_size, int symmetric)
{
    int a = sender, b = receiver;
    if (symmetric && a > b) a = receiver, b = sender;
    uint64_t s = seed * 31 + (uint64_t)pattern;
    uint64_t h = h_hash(s, (uint64_t)a, (uint64_t)b, 1);
    switch (pattern) {
    case PAT_UNIFORM:
        return (int)(h % 64);
    case PAT_ZEROS:
        return 0;
    case PAT_HOT_PEER: {
        int hot = (int)(seed % (uint64_t)size);
        if (b == hot || (symmetric && a == hot)) return 3000;
        return (int)(h % 3);
    }
    case PAT_POWER_LAW: {
        double u = h_unit(s, (uint64_t)a, (uint64_t)b, 2);
        double v = floor(pow(u, -1.5));
        return v > 4000 ? 4000 : (int)v - 1;
    }
    case PAT_NORMAL: {
        double u1 = h_unit(s, (uint64_t)a, (uint64_t)b, 3), u2 = h_unit(s, (uint64_t)a, (uint64_t)b, 4);
        double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
        double v = 200.0 + 50.0 * z;
        return v < 0 ? 0 : (int)v;
    }
    case PAT_SPARSE:
        return h % 10 == 0 ? (int)(1 + (h >> 8) % 100) : 0;
    case PAT_LARGE:
        /* About one large block per sender, small ones elsewhere. */
        if (h % (uint64_t)size == 0 || (size <= 2 && a != b))
            return large_elements(elem_size) + (int)((h >> 8) % 100);
        return (int)((h >> 8) % 8);
    }
    return 0;
}

int64_t layout_displs(int mode, const int *counts, int size, int *displs)
{
    int64_t cur = 0;
    if (mode == DISPL_PACKED) {
        for (int p = 0; p < size; p++) {
            displs[p] = (int)cur;
            cur += counts[p];
        }
        return cur;
    }
    cur = 1; /* a gap before the first block too */
    for (int p = size - 1; p >= 0; p--) {
        displs[p] = (int)cur;
        cur += counts[p] + (p % 3) + 1;
    }
    return cur;
}

void fill_bytes(unsigned char *buf, size_t n, uint64_t seed, int rank, int tag)
{
    uint64_t base = h_hash(seed, (uint64_t)rank, (uint64_t)tag, 7);
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = splitmix(base + i);
        size_t k = n - i < 8 ? n - i : 8;
        memcpy(buf + i, &v, k);
    }
}
