/*
 * ParLogNa: parameterized logarithmic non-uniform all-to-all (Fan et al.,
 * "ParLogNa and ParLinNa", /work/shared/papers/parlogna-parlinna-nonuniform-
 * alltoall.txt, Section 3 and Algorithm 1): a radix-r Bruck exchange whose
 * rounds each carry a metadata phase (block sizes) before the data.
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
 *   - Type matching: a block leaves the send buffer with the user's send type
 *     and leaves T as MPI_PACKED; it enters the receive buffer with the user's
 *     receive type and T as MPI_PACKED (MPI allows MPI_PACKED to match any
 *     signature), so forwarded data is never packed or unpacked by hand.
 *   - In-flight safety: an index with non-zero digits both below and above x
 *     is sent from T[t(i)] and received into T[t(i)] in the same round. Those
 *     "bounced" indices are received in a second wave into a free slot (after
 *     the first wave's sends from T have completed), then moved into t(i).
 *     A free slot always exists: for a bounced i, i mod r^(x+1) is a
 *     non-direct index that leaves T for its destination in the first wave.
 *     Every rank sees the same indices, so the waves match across ranks.
 *     Up to P = 128 a round needs at most 4 waves, usually 1.
 *   - Metadata: only the sizes of the blocks received into T (forwarded
 *     again later) travel; a block that ends in the receive buffer has the
 *     size the receiver's recvcounts say. Rounds of the highest digit forward
 *     nothing and skip the metadata message (r >= P-1: no metadata at all).
 *
 * Cost: K rounds; D = sum over i of the number of non-zero digits of i block
 * transfers (a block travels once per non-zero digit): r = 2 gives log2 P
 * rounds and ~P/2 log2 P transfers, r >= P-1 gives P-1 rounds with each block
 * sent once. KNOWN GAP: each round sends one metadata message and then ONE
 * MESSAGE PER BLOCK (so that blocks move with the user's datatypes or as
 * MPI_PACKED without a staging copy), so the latency term is ~D*alpha, not the
 * paper's 2K*alpha with one aggregated data message per round. Aggregating a
 * round's blocks (a derived datatype over the send buffer and T per wave, or a
 * packed staging buffer) is the next step; until then ParLogNa cannot show
 * its small-message advantage. Every round waits for its messages (store and
 * forward), so unlike the scattered exchange a late rank delays all later
 * rounds.
 *
 * Scratch (what XCHG_Comm_get_scratch_peak reports), exactly:
 *   T:        B * S_max bytes (B = P - K - 1; nothing when B * S_max == 0)
 *   metadata: P * 8           held bytes per slot index (int64, -1 = empty)
 *           + M * (2*8 + 3*4 + 2*sizeof(MPI_Request))
 *             metadata out/in (int64), round's indices, bounced indices,
 *             spare slots (int), one receive and one send request per block,
 *   where M = the number of blocks of the largest round
 *           = max over rounds (x, z) of #{1 <= i < P : digit_x(i) == z}.
 * P = 1 exchanges nothing and allocates nothing. Tags 1 + (position in the
 * round) must be valid: P <= MPI_TAG_UB (at least 32767).
 */
#include "parlogna.h"

#include <limits.h>
#include <string.h>

#include "../../core/error.h"

enum { TAG_META = 0, TAG_BLOCK = 1 };

typedef struct digits_plan {
    int P, r;
    int rounds;      /* K */
    int slots;       /* B = P - K - 1 */
    int max_round;   /* M */
} digits_plan;

static int is_direct(int64_t i, int r)
{
    while (i % r == 0) i /= r;
    return i < r; /* a single non-zero digit */
}

/* Closed-form slot in T of a non-direct index (see the header comment). */
static int64_t slot_of(int64_t i, int r)
{
    int64_t top = 1;
    int dx = 0;
    while (top <= i / r) {
        top *= r;
        dx++;
    }
    return i - 1 - (int64_t)dx * (r - 1) - i / top;
}

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

/* Everything one call holds besides T (one allocation). */
typedef struct round_state {
    int64_t *held;      /* [P] bytes in T for slot index i, -1 when empty */
    int64_t *meta_out;  /* [M] */
    int64_t *meta_in;   /* [M] */
    int *index;         /* [M] the round's indices */
    int *bounced;       /* [M] positions (into index) of bounced indices */
    int *spare;         /* [M] free slot indices used by the bounce waves */
    MPI_Request *reqs;  /* [2M] receives at 0.., sends at M.. */
} round_state;

static size_t state_bytes(int P, int M)
{
    return (size_t)P * sizeof(int64_t) +
           (size_t)M * (2 * sizeof(int64_t) + 3 * sizeof(int) + 2 * sizeof(MPI_Request));
}

static void state_carve(round_state *s, char *mem, int P, int M)
{
    s->reqs = (MPI_Request *)mem; /* most aligned first */
    s->held = (int64_t *)(s->reqs + 2 * M);
    s->meta_out = s->held + P;
    s->meta_in = s->meta_out + M;
    s->index = (int *)(s->meta_in + M);
    s->bounced = s->index + M;
    s->spare = s->bounced + M;
}

/* One round (x, z): distance pw*z. */
static int run_round(const xchg_args *a, const digits_plan *plan, round_state *s, char *T,
                     int64_t smax, int64_t pw, int z)
{
    const int P = a->size, me = a->rank, r = plan->r, M = plan->max_round;
    const int64_t dist = pw * z;
    const int to = (int)((me + dist) % P), from = (int)((me - dist % P + P) % P);
    int rc = MPI_SUCCESS, n = 0, nrecv = 0, nsend = 0, nbounce = 0;

    /* The round's indices, those forwarded again later (received into T)
     * first: their sizes are the metadata. The others end in the receive
     * buffer, whose block sizes the receiver knows already. */
    int nforward = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int64_t i = z * pw; i < P; i++) {
            if ((i / pw) % r != z || (i / (pw * r) != 0) != !pass) continue;
            s->index[n] = (int)i;
            s->meta_out[n++] = i % pw == 0 ? a->send.bytes[(me + i) % P] : s->held[i];
            nforward += !pass;
        }
    /* Phase 1: the sizes of the blocks forwarded (none in the rounds of the
     * highest digit, so r >= P-1 sends no metadata at all). */
    if (nforward > 0)
        XCHG_CHECK(MPI_Sendrecv(s->meta_out, nforward, MPI_INT64_T, to, TAG_META, s->meta_in,
                                nforward, MPI_INT64_T, from, TAG_META, a->comm,
                                MPI_STATUS_IGNORE));
    for (int k = nforward; k < n; k++)
        s->meta_in[k] = a->recv.bytes[(me - s->index[k] + P) % P];

    /* Phase 2, first wave: every block except the bounced ones. */
    for (int k = 0; k < n; k++) {
        int64_t i = s->index[k];
        int from_T = i % pw != 0, to_T = i / (pw * r) != 0;
        if (from_T && to_T) {
            s->bounced[nbounce++] = k;
            continue;
        }
        if (s->meta_in[k] == 0) continue;
        if (!to_T) {
            int origin = (int)((me - i + P) % P);
            XCHG_CHECK(MPI_Irecv(xchg_side_block_ptr(&a->recv, origin), a->recv.counts[origin],
                                 a->recv.type.type, from, TAG_BLOCK + k, a->comm,
                                 &s->reqs[nrecv++]));
        } else {
            XCHG_CHECK(MPI_Irecv(T + slot_of(i, r) * smax, (int)s->meta_in[k], MPI_PACKED, from,
                                 TAG_BLOCK + k, a->comm, &s->reqs[nrecv++]));
        }
    }
    /* Sends: first wave's at M.., the bounced ones after them (same order). */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < n; k++) {
            int64_t i = s->index[k];
            int from_T = i % pw != 0, to_T = i / (pw * r) != 0;
            if ((from_T && to_T) != pass) continue;
            MPI_Request *req = &s->reqs[M + nsend++];
            *req = MPI_REQUEST_NULL;
            if (s->meta_out[k] == 0) continue;
            if (!from_T) {
                int dest = (int)((me + i) % P);
                XCHG_CHECK(MPI_Isend(xchg_side_block_ptr(&a->send, dest), a->send.counts[dest],
                                     a->send.type.type, to, TAG_BLOCK + k, a->comm, req));
            } else {
                XCHG_CHECK(MPI_Isend(T + slot_of(i, r) * smax, (int)s->meta_out[k], MPI_PACKED,
                                     to, TAG_BLOCK + k, a->comm, req));
            }
        }
    const int first_wave_sends = n - nbounce;
    XCHG_CHECK(MPI_Waitall(nrecv, s->reqs, MPI_STATUSES_IGNORE));
    XCHG_CHECK(MPI_Waitall(first_wave_sends, s->reqs + M, MPI_STATUSES_IGNORE));
    nrecv = 0;
    for (int k = 0; k < n; k++) {
        int64_t i = s->index[k];
        int from_T = i % pw != 0, to_T = i / (pw * r) != 0;
        if (from_T && to_T) continue;
        s->held[i] = to_T ? s->meta_in[k] : -1;
    }

    /* Bounce waves: receive into free slots, wait for our own sends of those
     * indices (which frees their slots), then move the data into place. */
    for (int done = 0; done < nbounce;) {
        int nspare = 0;
        for (int64_t j = 1; j < P && nspare < nbounce - done; j++)
            if (s->held[j] < 0 && !is_direct(j, r)) s->spare[nspare++] = (int)j;
        if (nspare == 0) {
            rc = xchg_error(MPI_ERR_INTERN, "parlogna: no free slot for a bounced block");
            goto fail;
        }
        for (int q = 0; q < nspare; q++) {
            int k = s->bounced[done + q];
            s->reqs[q] = MPI_REQUEST_NULL;
            if (s->meta_in[k] > 0)
                XCHG_CHECK(MPI_Irecv(T + slot_of(s->spare[q], r) * smax, (int)s->meta_in[k],
                                     MPI_PACKED, from, TAG_BLOCK + k, a->comm, &s->reqs[q]));
            nrecv = q + 1;
        }
        XCHG_CHECK(MPI_Waitall(nspare, s->reqs, MPI_STATUSES_IGNORE));
        nrecv = 0;
        XCHG_CHECK(MPI_Waitall(nspare, s->reqs + M + first_wave_sends + done,
                               MPI_STATUSES_IGNORE));
        for (int q = 0; q < nspare; q++) {
            int k = s->bounced[done + q];
            int64_t i = s->index[k];
            if (s->meta_in[k] > 0)
                memcpy(T + slot_of(i, r) * smax, T + slot_of(s->spare[q], r) * smax,
                       (size_t)s->meta_in[k]);
            s->held[i] = s->meta_in[k];
        }
        done += nspare;
    }
    return MPI_SUCCESS;
fail:
    /* Nothing posted may outlive the buffers it uses. */
    MPI_Waitall(nrecv, s->reqs, MPI_STATUSES_IGNORE);
    MPI_Waitall(nsend, s->reqs + M, MPI_STATUSES_IGNORE);
    return rc;
}

int xchg_parlogna_exchange(xchg_context *ctx, const xchg_args *a, int64_t radix)
{
    const int P = a->size;
    int rc = MPI_SUCCESS;
    digits_plan plan;
    char *state_mem = NULL, *T = NULL;
    size_t state_size = 0, T_size = 0;
    round_state s;

    XCHG_CHECK(xchg_copy_self_block(a));
    if (P == 1) return MPI_SUCCESS;
    plan_digits(P, radix < P ? (int)radix : P, &plan);

    int64_t smax = 0;
    if (plan.slots > 0) {
        int64_t local_max = 0;
        for (int p = 0; p < P; p++)
            if (a->send.bytes[p] > local_max) local_max = a->send.bytes[p];
        XCHG_CHECK(MPI_Allreduce(&local_max, &smax, 1, MPI_INT64_T, MPI_MAX, a->comm));
        if (smax > INT_MAX) {
            rc = xchg_error(MPI_ERR_COUNT, "parlogna: blocks of %lld bytes are too large to "
                            "forward", (long long)smax);
            goto fail;
        }
    }
    state_size = state_bytes(P, plan.max_round);
    T_size = (size_t)plan.slots * (size_t)smax;
    state_mem = xchg_scratch_alloc(ctx, state_size);
    T = xchg_scratch_alloc(ctx, T_size);
    if (!state_mem || (T_size && !T)) {
        rc = xchg_error(MPI_ERR_NO_MEM, "parlogna: out of memory (%zu bytes)", state_size + T_size);
        goto fail;
    }
    state_carve(&s, state_mem, P, plan.max_round);
    for (int i = 0; i < P; i++) s.held[i] = -1;

    for (int64_t pw = 1; pw < P; pw *= plan.r)
        for (int z = 1; z < plan.r && z * pw < P; z++)
            XCHG_CHECK(run_round(a, &plan, &s, T, smax, pw, z));
fail:
    xchg_scratch_free(ctx, T, T_size);
    xchg_scratch_free(ctx, state_mem, state_size);
    return rc;
}

static int parlogna(xchg_context *ctx, const xchg_args *a, const xchg_choice *choice)
{
    return xchg_parlogna_exchange(ctx, a, xchg_choice_param(choice, "radix"));
}

const xchg_algorithm xchg_algo_alltoallv_parlogna = {
    .coll = XCHG_ALLTOALLV,
    .name = "parlogna",
    .summary = "radix-r non-uniform Bruck, metadata then data per round (ParLogNa)",
    .run = parlogna,
    .num_params = 1,
    .params = {{.name = "radix", .kind = XCHG_PARAM_INT, .def = 2, .min = 2,
                .max = XCHG_RANGE_P,
                .help = "base of the block-index digits: 2 = log2 P rounds, "
                        ">= P-1 = linear"}},
    .is_flat = 1,
};
