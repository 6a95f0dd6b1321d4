/*
 * The node-aware engine's roles (engine.h: the algorithms and the role
 * rules; engine.c: the phases that run them): who leads whom, the units and
 * the ranks each unit serves, built once per plan by engine_plan.c.
 */
#ifndef XCHG_COLL_NODEAWARE_ENGINE_PLAN_H
#define XCHG_COLL_NODEAWARE_ENGINE_PLAN_H

#include "engine.h"

typedef struct hier_plan {
    int P, me;
    int *all;                      /* [P] 0..P-1: the set of all ranks */
    int *leader_of;                /* [P] participant serving each rank */
    int *own_first, *own_ranks;    /* Own(p) = own_ranks[own_first[p]..own_first[p+1]) */
    int *unit_of, *index_of;       /* [P] unit and index of participants, -1 otherwise */
    int num_units, max_unit;
    int *unit_first, *unit_members;/* participants of unit v by index */
    int *tset_first, *tset_ranks;  /* T(v): ranks served by unit v */
    int leaders;                   /* leaders per node; 0: every rank takes part */
    int uneven_units;              /* unit sizes differ: the spread phase is needed */
    int regular;                   /* all units and groups equal: alltoall pads need no message */
    void *mem;
} hier_plan;

static inline int unit_size(const hier_plan *pl, int v) { return pl->unit_first[v + 1] - pl->unit_first[v]; }
static inline int member(const hier_plan *pl, int v, int i) { return pl->unit_members[pl->unit_first[v] + i]; }
static inline int own_count(const hier_plan *pl, int p) { return pl->own_first[p + 1] - pl->own_first[p]; }


/* The roles of `spec` on ctx's topology; domain_of: each rank's hardware
 * domain (groups=numa|socket), else NULL. pl->mem holds every array. */
int xchg_hier_plan_build(const xchg_context *ctx, const xchg_hier_spec *spec,
                         const int *domain_of, hier_plan *pl);

#endif
