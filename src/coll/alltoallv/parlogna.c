/*
 * ParLogNa: parameterized logarithmic non-uniform all-to-all, Section 3 and
 * Algorithm 1 of
 *   K. Fan, J. Domke, S. Ba, S. Kumar. Parameterized Algorithms for
 *   Non-uniform All-to-all. In: Proc. 34th International Symposium on
 *   High-Performance Parallel and Distributed Computing (HPDC '25), ACM, 2025.
 *   DOI 10.1145/3731545.3731590
 * a radix-r Bruck exchange whose rounds each carry a metadata phase (block
 * sizes) before the data.
 *
 * The scheme used here. The paper's Algorithm 1 sends to p - z*r^x and
 * receives from p + z*r^x, selects the blocks whose digit x "is 1" and keeps
 * the blocks with i % r^x == 0 in R; its prose (Section 3.1, Figure 1) sends
 * the blocks whose digit x equals z to the rank at distance +z*r^x. Only the
 * prose's version delivers every block (a digit value z > 1 must be tested as
 * == z), and here whether a received block is final (R) or forwarded (T) is
 * decided by its index's higher digits rather than the pseudocode's
 * i % r^x == 0 on its position in the round; so this file follows the prose:
 *   - Block index i = (destination - own rank) mod P, written in base r with
 *     w = ceil(log_r P) digits. digit_x(i) = (i / r^x) mod r.
 *   - Rounds (x, z) for x = 0..w-1, z = 1..r-1 with z*r^x < P, in that order:
 *     K = sum_x #{z : z*r^x < P} <= w(r-1) rounds. In round (x, z) every rank
 *     sends the blocks of the indices i with digit_x(i) == z to rank + z*r^x
 *     and receives the same indices from rank - z*r^x. A block keeps its index
 *     on every hop, so after the rounds of all its non-zero digits it has moved
 *     by exactly i ranks: the block in slot i of rank q came from rank q - i.
 *   - A block is read from the user's send buffer at its lowest non-zero
 *     digit (low(i) = i mod r^x == 0) and otherwise from the temporary buffer
 *     T. It is received into its place in the receive buffer (source q - i,
 *     with the user's receive type: no unpacking and no final rotation) at its
 *     highest non-zero digit (high(i) = i / r^(x+1) == 0), otherwise into T.
 *   - Only indices with two or more non-zero digits ever sit in T. The K
 *     indices z*r^x ("direct" blocks) never do, nor does the own block, so T
 *     has B = P - K - 1 slots of S_max bytes, S_max the largest block of any
 *     rank (one MPI_Allreduce, skipped when B == 0). r >= P-1 gives B = 0 and
 *     the exchange is linear (one direct block per round, no T at all).
 *   - Slot of a non-direct index, closed form (the paper's Section 3.3):
 *     t(i) = i - 1 - dx*(r-1) - dz, where r^dx is the largest power <= i and
 *     dz = i / r^dx: i minus the direct indices below it, minus one.
 *   - Messages: each round sends ONE data message to rank + z*r^x (and
 *     receives one from rank - z*r^x) carrying all its blocks, described as
 *     a bundle (src/core/bundle.h): with contiguous user datatypes, an
 *     hindexed MPI_BYTE datatype over the blocks where they lie (send
 *     buffer, T, receive buffer; zero copy); otherwise the blocks are packed
 *     into a staging buffer and move as MPI_PACKED. Forwarded data thus
 *     arrives straight in its final place or its slot of T.
 *   - In-flight safety: an index with non-zero digits both below and above x
 *     is sent from T[t(i)] and received into T[t(i)] in the same round.
 *     T has no room to receive all of them elsewhere while the round's sends
 *     are in flight (P = 8, r = 2, round x = 1 already needs 5 slots of 4),
 *     so the paper's B-slot T and its one data message per round cannot
 *     both hold. The parameter `bounce` chooses:
 *       wave (default): T stays B slots. The round's other blocks go in a
 *         first message; the "bounced" ones follow in further messages
 *         ("waves"), each received into slots that are free once the
 *         previous wave's sends from T have completed, then moved into
 *         t(i). A free slot always exists: for a bounced i, i mod r^(x+1) is
 *         a non-direct index that leaves T for its destination in the first
 *         wave. Every rank sees the same indices, so the waves match across
 *         ranks.
 *       copy: the bounced blocks are copied out of T first, so every round is
 *         one message, at the price of a copy buffer of the bounced bytes.
 *     The authors' code (general-alltoallv, tuna2_algorithm) instead copies
 *     every round through two staging buffers of P * S_max bytes each.
 *   - Metadata: only the sizes of the blocks received into T (forwarded
 *     again later) travel; a block that ends in the receive buffer has the
 *     size the receiver's recvcounts say. Rounds of the highest digit forward
 *     nothing and skip the metadata message (r >= P-1: no metadata at all).
 *     A receiver checks that each message has the bytes it expects
 *     (MPI_ERR_TRUNCATE when send and receive counts disagree).
 *
 * Plan. A blocking call's plan holds the digit schedule (K, B, M). A
 * persistent plan (XCHG_Alltoallv_init: counts and buffers fixed) also does
 * at init what follows from the counts: the S_max MPI_Allreduce and every
 * round's metadata exchange (replayed from a log by each start), and it holds
 * T and the round state itself, so that blocks lie at the same addresses on
 * every start; the first start then records each wave's two message
 * descriptions (the hindexed datatypes) and later starts post them again
 * without building a datatype. Waves that stage (non-contiguous datatypes)
 * or copy (bounce=copy) are rebuilt on every start. A start thus sends only
 * the K data messages (plus bounce waves).
 *
 * Cost: K rounds of one metadata message (fewer: none in the highest digit's
 * rounds) and one data message, plus the bounce waves with bounce=wave; D =
 * sum over i of the number of non-zero digits of i block transfers (a block
 * travels once per non-zero digit): r = 2 gives log2 P rounds and
 * ~P/2 log2 P transfers, r >= P-1 gives P-1 rounds with each block sent once.
 * Data messages per call (bounce=wave, from the schedule; copy: exactly K):
 *   P = 16:   r=2: 7 (K=4), r=4: 6 (K=6)
 *   P = 64:   r=2: 14 (K=6), r=4: 12 (K=9), r=8: 14 (K=14)
 *   P = 256:  r=2: 26 (K=8), r=4: 24 (K=12), r=16: 30 (K=30)
 *   P = 1024: r=2: 46 (K=10), r=4: 39 (K=15), r=32: 62 (K=62)
 * so with bounce=wave the latency term is ~(K + waves + metadata)*alpha and
 * with copy ~2K*alpha. Every round waits for its messages (store and
 * forward), so unlike the scattered exchange a late rank delays all later
 * rounds.
 *
 * Scratch (what XCHG_Comm_get_scratch_peak reports), exactly, for bounce=wave
 * and contiguous datatypes:
 *   T:        B * S_max bytes (B = P - K - 1; nothing when B * S_max == 0)
 *   metadata: P * 8           held bytes per slot index (int64, -1 = empty)
 *           + M * (2*8 + 2*24 + 8 + 4*4)
 *             metadata out/in (int64), the wave's blocks as sent and as
 *             received (pointer, int64 size, int peer), bundle displacements
 *             (MPI_Aint) and lengths, round's indices, bounced positions and
 *             spare slots (int),
 *   where M = the number of blocks of the largest round
 *           = max over rounds (x, z) of #{1 <= i < P : digit_x(i) == z}.
 * bounce=copy adds the bounced bytes of the round that has most (at most
 * M * S_max); a non-contiguous datatype adds a staging buffer of the
 * message's size on that side. P = 1 exchanges nothing and allocates nothing.
 * Limit: a block (and a staged message) of at most INT_MAX bytes.
 */
#include "parlogna.h"
#include "parlogna_round.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/bundle.h"
#include "../../core/error.h"
#include "../../select/model.h"

typedef struct digits_plan {
    int P, r;
    int rounds;      /* K */
    int slots;       /* B = P - K - 1 */
    int max_round;   /* M */
} digits_plan;

static void plan_digits(int P, int r, digits_plan *plan)
{
    plan->P = P;
    plan->r = r;
    plan->rounds = 0;
    plan->max_round = 0;
    for (int64_t pw = 1; pw < P; pw *= r)
        for (int z = 1; z < r && z * pw < P; z++) {
            int n = 0;
            for (int64_t i = 1; i < P; i++) n += (i / pw) % r == z;
            plan->rounds++;
            if (n > plan->max_round) plan->max_round = n;
        }
    plan->slots = P > 1 ? P - plan->rounds - 1 : 0;
}

/* What a ParLogNa plan holds. */
typedef struct parlogna_state {
    digits_plan digits;
    int bounce_copy;
    int64_t smax;        /* persistent plan: S_max, agreed at init; else -1 */
    int64_t *meta_log;   /* persistent plan: the metadata of every round, in order */
    char *T, *state_mem; /* persistent plan: T and the round state, held by the
                            plan so that recorded waves find their blocks */
    size_t T_size, state_size;
    wave_log waves;      /* persistent plan: recorded waves */
} parlogna_state;

/* The largest block any rank sends (collective), at most INT_MAX. */
static int agree_smax(const xchg_args *a, int64_t *smax)
{
    int rc;
    int64_t local_max = 0;
    for (int p = 0; p < a->size; p++)
        if (a->send.bytes[p] > local_max) local_max = a->send.bytes[p];
    XCHG_CHECK(xchg_allreduce(&local_max, smax, 1, MPI_INT64_T, MPI_MAX, a->comm));
    if (*smax > INT_MAX)
        return xchg_error(MPI_ERR_COUNT, "parlogna: blocks of %lld bytes are too large to "
                          "forward", (long long)*smax);
fail:
    return rc;
}

/*
 * Persistent plan: the counts are fixed, so every round's metadata (the
 * sizes of the blocks forwarded) is too. Exchange it once, here, along the
 * same schedule as xchg_parlogna_round, and log it in round order.
 */
static int record_metadata(const xchg_args *a, parlogna_state *st)
{
    const digits_plan *d = &st->digits;
    const int P = a->size, me = a->rank, r = d->r;
    int rc = MPI_SUCCESS;
    int64_t *held = NULL, *out = NULL, logged = 0, capacity = (int64_t)d->rounds * d->max_round;
    int *index = NULL;
    XCHG_ALLOC(held, (size_t)P * sizeof(int64_t));
    XCHG_ALLOC(out, (size_t)d->max_round * sizeof(int64_t) + 1);
    XCHG_ALLOC(index, (size_t)d->max_round * sizeof(int) + 1);
    XCHG_ALLOC(st->meta_log, (size_t)capacity * sizeof(int64_t) + 1);
    for (int i = 0; i < P; i++) held[i] = -1;
    for (int64_t pw = 1; pw < P; pw *= r)
        for (int z = 1; z < r && z * pw < P; z++) {
            int n = 0, to = (int)((me + pw * z) % P), from = (int)((me - pw * z % P + P) % P);
            for (int64_t i = z * pw; i < P; i++)
                if ((i / pw) % r == z && i / (pw * r) != 0) {
                    index[n] = (int)i;
                    out[n++] = i % pw == 0 ? a->send.bytes[(me + i) % P] : held[i];
                }
            for (int64_t i = z * pw; i < P; i++) /* sent away: the slot empties */
                if ((i / pw) % r == z) held[i] = -1;
            if (n == 0) continue;
            int64_t *in = st->meta_log + logged;
            XCHG_CHECK(xchg_sendrecv(out, n, MPI_INT64_T, to, TAG_META, in, n, MPI_INT64_T, from,
                                    TAG_META, a->comm, MPI_STATUS_IGNORE));
            for (int k = 0; k < n; k++) held[index[k]] = in[k];
            logged += n;
        }
fail:
    free(held);
    free(out);
    free(index);
    return rc;
}

static void parlogna_free(xchg_plan *plan)
{
    parlogna_state *st = plan->state;
    if (st) {
        for (int w = 0; w < st->waves.count; w++) {
            if (!st->waves.wave[w].reusable) continue; /* a zeroed slot: no bundle kept */
            xchg_bundle_release(&st->waves.wave[w].in);
            xchg_bundle_release(&st->waves.wave[w].out);
        }
        free(st->waves.wave);
        free(st->meta_log);
        free(st->T);
        free(st->state_mem);
    }
    free(st);
    plan->state = NULL;
}

static int parlogna_init(xchg_plan *plan)
{
    const int P = plan->ctx->size;
    const int64_t radix = plan->choice.value[XCHG_PARLOGNA_RADIX];
    int rc = MPI_SUCCESS;
    parlogna_state *st = calloc(1, sizeof *st);
    if (!st) return xchg_error(MPI_ERR_NO_MEM, "parlogna: out of memory");
    plan->state = st;
    plan_digits(P, radix < P ? (int)radix : (P > 1 ? P : 2), &st->digits);
    st->bounce_copy = plan->choice.value[XCHG_PARLOGNA_BOUNCE] == XCHG_PARLOGNA_BOUNCE_COPY;
    st->smax = -1;
    if (plan->fixed && P > 1) {
        if (st->digits.slots > 0) XCHG_CHECK(agree_smax(plan->fixed, &st->smax));
        else st->smax = 0;
        XCHG_CHECK(record_metadata(plan->fixed, st));
        st->state_size = state_bytes(P, st->digits.max_round);
        st->T_size = (size_t)st->digits.slots * (size_t)st->smax;
        XCHG_ALLOC(st->state_mem, st->state_size);
        XCHG_ALLOC(st->T, st->T_size);
    }
fail:
    if (rc != MPI_SUCCESS) parlogna_free(plan);
    return rc;
}

static int parlogna_run(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    parlogna_state *st = plan->state; /* a persistent plan records its waves here */
    const digits_plan *d = &st->digits;
    const int P = a->size;
    int rc = MPI_SUCCESS;
    char *state_mem = NULL, *T = NULL;
    size_t state_size = 0, T_size = 0;
    round_state s;

    XCHG_CHECK(xchg_copy_self_block(a));
    if (P == 1) return MPI_SUCCESS;
    int64_t smax = st->smax >= 0 ? st->smax : 0;
    if (st->smax < 0 && d->slots > 0) XCHG_CHECK(agree_smax(a, &smax));
    wave_log *waves = NULL;
    if (st->state_mem) { /* persistent: the plan's own, at fixed addresses */
        state_mem = st->state_mem;
        T = st->T;
        waves = &st->waves;
        waves->replay = waves->count > 0;
        waves->next = 0;
    } else {
        state_size = state_bytes(P, d->max_round);
        T_size = (size_t)d->slots * (size_t)smax;
        state_mem = xchg_scratch_alloc(ctx, state_size);
        T = xchg_scratch_alloc(ctx, T_size);
    }
    if (!state_mem || (T_size && !T)) {
        rc = xchg_error(MPI_ERR_NO_MEM, "parlogna: out of memory (%zu bytes)", state_size + T_size);
        goto fail;
    }
    state_carve(&s, state_mem, P, d->max_round);
    for (int i = 0; i < P; i++) s.held[i] = -1;

    round_env e = {.ctx = ctx, .a = a, .s = &s, .T = T, .smax = smax, .r = d->r,
                   .bounce_copy = st->bounce_copy, .meta_log = st->meta_log,
                   .waves = waves};
    for (e.pw = 1; e.pw < P; e.pw *= d->r)
        for (int z = 1; z < d->r && z * e.pw < P; z++) XCHG_CHECK(xchg_parlogna_round(&e, z));
fail:
    if (!st->state_mem) { /* scratch of this call, not the plan's */
        xchg_scratch_free(ctx, T, T_size);
        xchg_scratch_free(ctx, state_mem, state_size);
    }
    return rc;
}

static const char *const bounce_names[] = {"wave", "copy", NULL};

/* The model: the MPI_Allreduce of S_max when T is used, then rounds (x, z)
 * for z*r^x < P, each one data message to distance z*r^x carrying the
 * blocks whose digit x is z, preceded by a metadata message unless x is the
 * highest digit; blocks bounced through T cost a copy (bounce=copy) or a
 * further message (wave). */
double xchg_parlogna_cost(const xchg_cost_case *c, const xchg_platform *plat, int64_t radix,
                          int bounce)
{
    const int64_t P = c->P, r = radix < 2 ? 2 : radix;
    double total = 0;
    int64_t top = 1; /* r^(w-1), the highest digit's weight */
    while (top <= (P - 1) / r) top *= r;
    if (top > 1) { /* T is used: S_max by one MPI_Allreduce, log2 P rounds */
        double rounds = 0;
        for (int64_t d = 1; d < P; d *= 2) rounds++;
        xchg_cost_phase agree = {.rounds = rounds, .local_msgs = c->nodes > 1 ? 0 : rounds,
                                 .remote_msgs = c->nodes > 1 ? rounds : 0};
        total += xchg_cost_of_phase(c, plat, &agree);
    }
    for (int64_t rx = 1; rx < P; rx = rx <= (P - 1) / r ? rx * r : P) {
        for (int64_t z = 1; z < r && z * rx < P; z++) {
            /* indices i < P with digit x == z */
            int64_t cycle = rx * r, in_rem = P % cycle - z * rx;
            int64_t blocks = (P / cycle) * rx + (in_rem < 0 ? 0 : in_rem < rx ? in_rem : rx);
            /* bounced: lower and higher digits non-zero */
            double bounced = rx > 1 && cycle < P ? blocks * (1 - 1.0 / rx) * (1 - (double)cycle / P)
                                                 : 0;
            double f = xchg_cost_remote_fraction(c, (int)(z * rx)), bytes = blocks * c->block;
            xchg_cost_phase round = {
                .rounds = (rx < top ? 2 : 1) + (bounce == XCHG_PARLOGNA_BOUNCE_WAVE && bounced > 0),
                .local_msgs = (rx < top ? 2 : 1) * (1 - f), .remote_msgs = (rx < top ? 2 : 1) * f,
                .local_bytes = (1 - f) * bytes, .remote_bytes = f * bytes,
                .copy_bytes = bounce == XCHG_PARLOGNA_BOUNCE_COPY ? 2 * bounced * c->block : 0};
            total += xchg_cost_of_phase(c, plat, &round);
        }
    }
    return total;
}

static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    return xchg_parlogna_cost(c, plat, choice->value[XCHG_PARLOGNA_RADIX],
                              (int)choice->value[XCHG_PARLOGNA_BOUNCE]);
}

/* Registered for alltoallv and, on equal blocks, for alltoall: the uniform
 * alltoall's radix-r Bruck (MPICH's k-port Bruck plays the same role). */
#define PARLOGNA_DESCRIPTOR(collective)                                                  \
    {.coll = collective,                                                               \
     .name = "parlogna",                                                               \
     .summary = "radix-r non-uniform Bruck, metadata then data per round (ParLogNa)",  \
     .reference = "Fan et al. 2025",                                                   \
     .init = parlogna_init,                                                            \
     .run = parlogna_run,                                                              \
     .destroy = parlogna_free,                                                         \
     .cost = cost,                                                                     \
     .num_params = 2,                                                                  \
     .params = {[XCHG_PARLOGNA_RADIX] = {.name = "radix", .kind = XCHG_PARAM_INT,      \
                                         .def = 2, .min = 2, .max = XCHG_RANGE_P,      \
                                         .help = "base of the block-index digits: 2 = "  \
                                                 "log2 P rounds, >= P-1 = linear"},     \
                [XCHG_PARLOGNA_BOUNCE] = {.name = "bounce", .kind = XCHG_PARAM_ENUM,   \
                                          .def = XCHG_PARLOGNA_BOUNCE_WAVE,            \
                                          .names = bounce_names,                       \
                                          .help = "blocks forwarded twice in a row: "   \
                                                  "extra messages (wave, T only) or a " \
                                                  "copy (one message per round, more "  \
                                                  "scratch)"}},                         \
     .is_flat = 1}

const xchg_algorithm xchg_algo_alltoallv_parlogna = PARLOGNA_DESCRIPTOR(XCHG_ALLTOALLV);
const xchg_algorithm xchg_algo_alltoall_parlogna = PARLOGNA_DESCRIPTOR(XCHG_ALLTOALL);
