/*
 * Overlapped locality-aware all-to-all: the locality-aware exchange
 * (Algorithm 4 with g regions per node, Figure 5, of Kinkead et al., SC
 * Workshops '25, DOI 10.1145/3731599.3767393) with its two phases
 * overlapped: node n's ranks form min(g, Q_n) regions of consecutive local
 * ranks (those of locality_aware); every rank sends one message per other
 * region (of every node, its own included), and the blocks of each arriving
 * message are forwarded inside the region while the others are still in
 * flight (in `batches` batches, or each message alone); blocks between
 * ranks of one region go directly. The schedule, its tags, why the buffers
 * are safe and its cost: overlap.c, where a unit is a region.
 * Cost (U = N g regions of K = Q/g ranks): max(alpha + (N-1) Q^2 m
 * beta_remote, alpha + U (K-1) m beta_local) + the last batch's forwarding;
 * N g - 1 messages between regions and batches * (K-1) forwarded per rank.
 * groups=1 is node_aware_overlap. groups=numa / socket (locality_aware's)
 * are not offered: they need a collective plan init.
 */
#include "engine.h"
#include "overlap.h"

enum { PARAM_GROUPS, PARAM_BATCHES };

static xchg_overlap_spec spec_of(const xchg_choice *choice)
{
    return (xchg_overlap_spec){.groups = (int)choice->value[PARAM_GROUPS],
                               .batches = choice->value[PARAM_BATCHES]};
}

#define PARAMS                                                                       \
    {[PARAM_GROUPS] = {.name = "groups", .kind = XCHG_PARAM_INT, .def = 2, .min = 1, \
                       .max = XCHG_RANGE_P, .help = "regions per node (min(g, node size) are used)"}, \
     [PARAM_BATCHES] = XCHG_OVERLAP_PARAM_BATCHES}
XCHG_REGISTER_OVERLAP(locality_aware_overlap, spec_of,
                      "locality-aware (g regions per node), forwarding while messages fly",
                      2, PARAMS, .reference = "Kinkead et al. 2025")
