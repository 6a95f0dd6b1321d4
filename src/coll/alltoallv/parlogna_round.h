/*
 * ParLogNa's rounds (parlogna.c: the algorithm, its schedule, plan, cost and
 * scratch; parlogna_round.c: one round, its metadata and its waves): what a
 * call holds while its rounds run.
 */
#ifndef XCHG_COLL_ALLTOALLV_PARLOGNA_ROUND_H
#define XCHG_COLL_ALLTOALLV_PARLOGNA_ROUND_H

#include "../../core/bundle.h"
#include "../../core/context.h"

enum { TAG_META = 0, TAG_DATA = 1 };

/* Everything one call holds besides T (one allocation). */
typedef struct round_state {
    int64_t *held;                   /* [P] bytes in T for slot index i, -1 when empty */
    int64_t *meta_out;               /* [M] */
    int64_t *meta_in;                /* [M] */
    xchg_bundle_block *send_blocks;  /* [M] one wave's blocks, as sent */
    xchg_bundle_block *recv_blocks;  /* [M] and as received */
    MPI_Aint *displs;                /* [M] bundle workspace */
    int *lens;                       /* [M] bundle workspace */
    int *index;                      /* [M] the round's indices */
    int *bounced;                    /* [M] positions (into index) of bounced indices */
    int *spare;                      /* [M] free slot indices used by the bounce waves */
} round_state;

static inline size_t state_bytes(int P, int M)
{
    return (size_t)P * sizeof(int64_t) +
           (size_t)M * (2 * sizeof(int64_t) + 2 * sizeof(xchg_bundle_block) +
                        sizeof(MPI_Aint) + 4 * sizeof(int));
}

static inline void state_carve(round_state *s, char *mem, int P, int M)
{
    s->send_blocks = (xchg_bundle_block *)mem; /* most aligned first */
    s->recv_blocks = s->send_blocks + M;
    s->displs = (MPI_Aint *)(s->recv_blocks + M);
    s->held = (int64_t *)(s->displs + M);
    s->meta_out = s->held + P;
    s->meta_in = s->meta_out + M;
    s->lens = (int *)(s->meta_in + M);
    s->index = s->lens + M;
    s->bounced = s->index + M;
    s->spare = s->bounced + M;
}

/* A persistent plan's waves, recorded at the first start: each wave's two
 * message descriptions (with their datatypes), reused by later starts, whose
 * blocks lie at the same places (the user's fixed buffers, the plan's T) with
 * the same sizes. A wave that needs staging or a bounce copy is rebuilt. */
typedef struct wave_record {
    int reusable;
    xchg_bundle in, out;
} wave_record;

typedef struct wave_log {
    wave_record *wave;
    int count, capacity;
    int replay;       /* 0 during the first start (recording), then 1 */
    int next;         /* the next wave of this start */
} wave_log;

/* One round (x, z): what every step of it needs. */
typedef struct round_env {
    xchg_context *ctx;
    const xchg_args *a;
    round_state *s;
    char *T;
    int64_t smax, pw; /* slot size; r^x */
    int r, to, from;  /* radix; this round's peers */
    int bounce_copy;  /* bounce=copy: bounced blocks leave T through a copy */
    const int64_t *meta_log; /* persistent plan: every round's metadata, known at
                                init (NULL: exchanged in each round) */
    int64_t meta_pos;        /* next entry of meta_log */
    wave_log *waves;         /* persistent plan: recorded waves (NULL: none) */
} round_env;

/* Run round (x, z) of the schedule: e->pw = r^x, distance z r^x. */
int xchg_parlogna_round(round_env *e, int z);

#endif
