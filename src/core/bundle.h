/*
 * A bundle: several blocks moved as ONE message, for store-and-forward
 * algorithms whose rounds carry many blocks (ParLogNa).
 *
 * A block is either a user block of one side (peer >= 0: it is read or
 * written with that side's datatype) or packed bytes in the algorithm's own
 * scratch (peer < 0). How the message is described depends on the side only,
 * so sender and receiver decide independently:
 *   - contiguous user datatype: every block is a run of bytes, and the
 *     message is an hindexed MPI_BYTE datatype over the blocks where they lie
 *     (zero copy; displacements relative to the first block, no MPI_BOTTOM,
 *     which SimGrid SMPI does not support). One block needs no datatype.
 *   - otherwise: the blocks are packed into a staging buffer (MPI_Pack for
 *     user blocks, a copy for packed bytes) and move as MPI_PACKED; a received
 *     bundle is unpacked by xchg_bundle_finish. The staging buffer is scratch
 *     (counted by XCHG_Comm_get_scratch_peak) of the bundle's total size.
 * Both descriptions carry the same bytes, so either side may use either one.
 * Blocks of zero bytes are skipped; a bundle of no bytes sends no message.
 * Limits: one block at most INT_MAX bytes; a staged bundle at most INT_MAX.
 * The received size is checked for bundles of at most INT_MAX bytes.
 */
#ifndef XCHG_CORE_BUNDLE_H
#define XCHG_CORE_BUNDLE_H

#include "pmpi.h"
#include <stddef.h>
#include <stdint.h>

#include "args.h"
#include "context.h"

typedef struct xchg_bundle_block {
    char *ptr;     /* where the block is */
    int64_t bytes; /* its packed size */
    int peer;      /* >= 0: user block of the side; < 0: packed bytes at ptr */
} xchg_bundle_block;

typedef struct xchg_bundle {
    const xchg_side *side;
    const xchg_bundle_block *blocks; /* must stay valid until xchg_bundle_finish */
    int num_blocks;
    int64_t bytes;          /* total */
    char *buf;              /* what MPI is given: buf, count, datatype */
    int count;
    MPI_Datatype datatype;
    MPI_Datatype owned_type; /* committed hindexed type, or MPI_DATATYPE_NULL */
    char *stage;            /* packed staging buffer, or NULL */
    size_t stage_bytes;
    int keep_type;          /* set by the caller: xchg_bundle_finish leaves
                               owned_type for reuse (xchg_bundle_release) */
} xchg_bundle;

/* Describe `num_blocks` blocks of `side` as one message. `lens` and `displs`
 * are caller workspace of num_blocks entries (used only during this call). */
int xchg_bundle_init(xchg_context *ctx, xchg_bundle *b, const xchg_side *side,
                     const xchg_bundle_block *blocks, int num_blocks, int *lens,
                     MPI_Aint *displs, int is_send);

/* Post the message (MPI_REQUEST_NULL when the bundle has no bytes). */
int xchg_bundle_isend(xchg_bundle *b, int dest, int tag, MPI_Comm comm, MPI_Request *req);
int xchg_bundle_irecv(xchg_bundle *b, int source, int tag, MPI_Comm comm, MPI_Request *req);

/* After the request completed: for a receive, check that the sender sent as
 * many bytes as expected and unpack a staged bundle. Then release the bundle
 * (also call it, with status NULL, to release after an error). */
int xchg_bundle_finish(xchg_context *ctx, xchg_bundle *b, const MPI_Status *received);

/* A bundle that is its own description (no staging: contiguous datatype)
 * can be posted again while its blocks stay where they are: persistent plans
 * keep it (keep_type) and free its datatype here at the end. */
static inline int xchg_bundle_reusable(const xchg_bundle *b) { return b->stage == NULL; }
void xchg_bundle_release(xchg_bundle *b);

#endif
