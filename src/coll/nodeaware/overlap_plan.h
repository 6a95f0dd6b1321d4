/*
 * The overlapped exchange's plan (overlap.c: the schedule; overlap_plan.c:
 * the plan's init): the units, and which messages reach this rank.
 */
#ifndef XCHG_COLL_NODEAWARE_OVERLAP_PLAN_H
#define XCHG_COLL_NODEAWARE_OVERLAP_PLAN_H

#include "overlap.h"

/* What a rank needs of the units, built once per communicator. */
typedef struct overlap_plan {
    int num_units;
    int *unit_of, *index_of;        /* [P] each rank's unit and its position there */
    int *unit_first, *unit_members; /* unit v = unit_members[unit_first[v]..unit_first[v+1]) */
    int me, unit, local, K;         /* this rank's unit, position, unit size */
    int num_sources;                /* ranks whose message for my unit reaches me */
    int *sources;                   /* [num_sources] in the order they send to my unit */
    int num_batches;                /* my sources' batches */
    int *batch_first;               /* [num_batches + 1] batch b = sources[first[b]..first[b+1]) */
    int *batch_of;                  /* [num_sources] each source's batch */
    int num_forwarded;              /* blocks reaching me through another member */
    int *forwarded_src;             /* [num_forwarded] their sources, grouped by message */
    int num_inbound;                /* forwarded messages: one per forwarder and batch */
    int *inbound_first;             /* [num_inbound + 1] message i = forwarded entries
                                       [first[i], first[i+1]) */
    int *inbound_via;               /* [num_inbound] the forwarder */
    int *mem;
} overlap_plan;

static inline int unit_size(const overlap_plan *pl, int v)
{
    return pl->unit_first[v + 1] - pl->unit_first[v];
}

/* Member i of unit v. */
static inline int rank_on(const overlap_plan *pl, int v, int i)
{
    return pl->unit_members[pl->unit_first[v] + i];
}

/* The rank of unit `to` that rank `from` sends its message for `to` to. */
static inline int channel_of(const overlap_plan *pl, int from, int to)
{
    return rank_on(pl, to, pl->index_of[from] % unit_size(pl, to));
}

#endif
