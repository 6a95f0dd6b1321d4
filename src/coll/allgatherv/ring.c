/*
 * Ring allgatherv (MPICH MPIR_Allgatherv_intra_ring, Open MPI coll/base
 * allgatherv "ring"), as described for allgather in
 *   R. Thakur, R. Rabenseifner, W. Gropp. Optimization of Collective
 *   Communication Operations in MPICH. International Journal of High
 *   Performance Computing Applications 19(1):49-66, 2005.
 *   DOI 10.1177/1094342005051521
 * with MPICH's pipelining of long blocks (its ring allgatherv cuts blocks
 * into chunks of MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE bytes).
 *
 * Schedule: every rank sends to rank+1 and receives from rank-1. It sends
 * the blocks of ranks rank, rank-1, ..., rank+2 in that order and receives
 * those of rank-1, rank-2, ..., rank+1, straight into the receive buffer
 * with the receive datatype (each block is forwarded from where it
 * arrived: no packing, any displacements). With `segment=whole` a step
 * moves one whole block each way (the textbook ring, P-1 steps). With a
 * segment size, a step moves at most that many bytes of the current block
 * each way, and each direction moves on to the next block when its current
 * one is done: a long block then flows around the ring in pieces, one piece
 * behind the other, instead of stopping the whole ring for its full length
 * at every step. A block of zero bytes is never sent: both ends know its
 * size (every rank has the same recvcounts).
 * Pieces are counted in receive-datatype elements (segment / type size),
 * as MPICH does: a segmented ring assumes every rank passes the same
 * recvtype (a program whose ranks use different receive datatypes of the
 * same signature needs segment=whole).
 * Cost, with m the mean and m_max the largest block: whole blocks:
 * (P-1) * (alpha + beta * m_max) (the largest block crosses some link at
 * every step); segments of s bytes: about (P-1 + m_max/s) * alpha' +
 * beta * max((P-1) m, (P-1) s + m_max), where alpha' = alpha + the smaller
 * of s and m times beta per step. With equal blocks both are allgather's
 * bandwidth-optimal (P-1) * alpha + (P-1) * beta * m.
 * Memory: no scratch.
 */
#include <stdlib.h>

#include "../../core/error.h"
#include "../../core/exchange.h"
#include "../../select/model.h"

enum { PARAM_SEGMENT };
static const char *const segment_names[] = {"whole", "4096", "32768", "262144", NULL};

/* Elements of the receive datatype in one piece; 0: whole blocks. */
static int piece_elements(const xchg_args *a, int64_t segment)
{
    if (segment <= 0 || a->recv.type.size == 0) return 0;
    int64_t n = segment / a->recv.type.size;
    return n > 0 ? (int)n : 1;
}

static int ring(xchg_context *ctx, const xchg_args *a, const xchg_plan *plan)
{
    (void)ctx;
    const int P = a->size, me = a->rank, right = (me + 1) % P, left = (me - 1 + P) % P;
    const xchg_side *r = &a->recv;
    int64_t segment = plan->choice.value[PARAM_SEGMENT] == 0
                          ? 0 : atoll(segment_names[plan->choice.value[PARAM_SEGMENT]]);
    int piece = piece_elements(a, segment), rc = MPI_SUCCESS, nreq = 0;
    MPI_Request reqs[2];
    XCHG_CHECK(xchg_copy_self_block(a));
    /* Blocks left to send (all but right's) and to receive (all but ours). */
    int send_blocks = P - 1, recv_blocks = P - 1;
    int sidx = me, ridx = left, soff = 0, roff = 0; /* current block, elements done */
    while (send_blocks > 0 || recv_blocks > 0) {
        int send_now = 0, recv_now = 0;
        if (send_blocks > 0) {
            send_now = r->counts[sidx] - soff;
            if (piece && send_now > piece) send_now = piece;
        }
        if (recv_blocks > 0) {
            recv_now = r->counts[ridx] - roff;
            if (piece && recv_now > piece) recv_now = piece;
        }
        if (recv_now > 0 && r->bytes[ridx] > 0) {
            XCHG_CHECK(MPI_Irecv(xchg_side_block_ptr(r, ridx) + (int64_t)roff * r->type.extent,
                                 recv_now, r->type.type, left, 0, a->comm, &reqs[nreq]));
            nreq++;
        }
        if (send_now > 0 && r->bytes[sidx] > 0) {
            XCHG_CHECK(MPI_Isend(xchg_side_block_ptr(r, sidx) + (int64_t)soff * r->type.extent,
                                 send_now, r->type.type, right, 0, a->comm, &reqs[nreq]));
            nreq++;
        }
        XCHG_CHECK(xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE));
        nreq = 0;
        soff += send_now;
        roff += recv_now;
        if (send_blocks > 0 && soff == r->counts[sidx]) { /* next block to send */
            soff = 0;
            sidx = (sidx - 1 + P) % P;
            send_blocks--;
        }
        if (recv_blocks > 0 && roff == r->counts[ridx]) {
            roff = 0;
            ridx = (ridx - 1 + P) % P;
            recv_blocks--;
        }
    }
fail:
    if (nreq > 0) xchg_waitall(nreq, reqs, MPI_STATUSES_IGNORE);
    return rc;
}

/* The model: whole blocks: P-1 rounds, each paced by the largest block (it
 * crosses some link at every step); segments: the mean block's P-1 rounds,
 * plus the rounds the largest block's pieces add, each round at most one
 * segment. One rank per node sends off the node (ranks placed by node), so
 * the node's link is not shared. */
static double cost(const xchg_cost_case *c, const xchg_choice *choice, const xchg_platform *plat)
{
    int remote = c->nodes > 1;
    double largest = c->max_block > c->block ? c->max_block : c->block;
    double rounds = c->P - 1, bytes = (c->P - 1) * largest;
    if (choice->value[PARAM_SEGMENT] != 0) {
        double s = atof(segment_names[choice->value[PARAM_SEGMENT]]);
        double piece = largest < s ? largest : s;
        rounds = (c->P - 1) + (largest > s ? largest / s - 1 : 0);
        bytes = (c->P - 1) * c->block > (c->P - 1) * piece + largest
                    ? (c->P - 1) * c->block : (c->P - 1) * piece + largest;
    }
    xchg_cost_phase ring = {.rounds = rounds, .local_msgs = remote ? 0 : rounds,
                            .remote_msgs = remote ? rounds : 0,
                            .local_bytes = remote ? 0 : bytes,
                            .remote_bytes = remote ? bytes : 0, .sharers = 1};
    return xchg_cost_of_phase(c, plat, &ring);
}

const xchg_algorithm xchg_algo_allgatherv_ring = {
    .coll = XCHG_ALLGATHERV,
    .name = "ring",
    .summary = "P-1 steps around a ring, blocks where they lie, long ones in segments",
    .reference = "Thakur et al. 2005",
    .run = ring,
    .num_params = 1,
    .params = {[PARAM_SEGMENT] = {.name = "segment", .kind = XCHG_PARAM_ENUM, .def = 2,
                                  .names = segment_names,
                                  .help = "bytes a step moves of a long block (MPICH's "
                                          "pipelining: 32768); whole: one block per step"}},
    .cost = cost,
    .is_flat = 1,
};
