/*
 * Alltoallw cases of the harness: a datatype per peer on each side, checked
 * byte for byte against PMPI_Alltoallw.
 *
 * The block that rank s sends to rank r uses the harness type pair chosen
 * by a hash of (seed, s, r): s sends count * send_mult elements of its send
 * type, r receives count elements of its receive type, so the signatures
 * match and every peer of one rank has its own datatype (basic types of
 * different sizes, vector, resized with holes, subarray, struct with holes,
 * and pairs whose two sides differ). Counts come from the alltoallv
 * patterns (zeros included); displacements are bytes, blocks packed in peer
 * order or in reverse order with gaps. MPI_IN_PLACE uses the receive types
 * on both ends, chosen and counted symmetrically, as MPI requires.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static test_type *wtypes;
static int num_wtypes;

/* The harness types plus a subarray and a struct with holes. */
int alltoallw_types_create(void)
{
    test_type *base;
    int n;
    types_create(&base, &n);
    wtypes = calloc((size_t)n + 2, sizeof *wtypes);
    memcpy(wtypes, base, (size_t)n * sizeof *wtypes);
    free(base); /* the entries' handles now live in wtypes */
    /* A 2x3 block at (1,1) of a 4x5 int array: 24 bytes over an extent of 80. */
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, starts[2] = {1, 1};
    MPI_Datatype subarray, st_inner, st;
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &subarray);
    MPI_Type_commit(&subarray);
    /* {char at 0, double at 8, short at 20}, resized to 32: holes everywhere. */
    int lens[3] = {1, 1, 1};
    MPI_Aint displs[3] = {0, 8, 20};
    MPI_Datatype members[3] = {MPI_CHAR, MPI_DOUBLE, MPI_SHORT};
    MPI_Type_create_struct(3, lens, displs, members, &st_inner);
    MPI_Type_create_resized(st_inner, 0, 32, &st);
    MPI_Type_free(&st_inner);
    MPI_Type_commit(&st);
    test_type *t = &wtypes[n];
    MPI_Aint lb;
    int size;
    t[0] = (test_type){.name = "subarray", .send = subarray, .recv = subarray, .send_mult = 1};
    t[1] = (test_type){.name = "struct_holes", .send = st, .recv = st, .send_mult = 1};
    for (int i = 0; i < 2; i++) {
        MPI_Type_size(t[i].recv, &size);
        t[i].size = size;
        MPI_Type_get_extent(t[i].send, &lb, &t[i].send_extent);
        t[i].recv_extent = t[i].send_extent;
    }
    num_wtypes = n + 2;
    return MPI_SUCCESS;
}

void alltoallw_types_free(void)
{
    types_free(wtypes, num_wtypes); /* frees each derived receive type once */
}

/* The type pair of the block from `s` to `r`. */
static const test_type *pair_type(uint64_t seed, int s, int r, int in_place)
{
    if (in_place && s > r) { int x = s; s = r; r = x; }
    return &wtypes[h_hash(seed, (uint64_t)s, (uint64_t)r, 17) % (uint64_t)num_wtypes];
}

/* Byte displacements for blocks of `span` bytes: packed in peer order
 * (8-byte aligned) or reversed with gaps. Returns the buffer size. */
static size_t byte_layout(int mode, const int64_t *span, int size, int *displs)
{
    int64_t cur = mode == DISPL_PACKED ? 0 : 8;
    for (int i = 0; i < size; i++) {
        int p = mode == DISPL_PACKED ? i : size - 1 - i;
        displs[p] = (int)cur;
        cur += (span[p] + 7) / 8 * 8 + (mode == DISPL_PACKED ? 0 : 8 * (p % 3 + 1));
    }
    return (size_t)cur + 64;
}

/* PMPI_Alltoallw as MPI defines it, around two library bugs: MPI_IN_PLACE
 * is the same call from a copy of the receive buffer (MPICH 4.0's in-place
 * alltoallw fails with "Message truncated", or corrupts data, on large
 * non-contiguous blocks); on one rank a send-receive to oneself (Open MPI
 * 4.1's coll/self alltoallw multiplies the byte displacements by the
 * extents and writes far past the buffer). */
static int reference_alltoallw(const void *sb, const int *sc, const int *sd,
                               const MPI_Datatype *st, unsigned char *rb, size_t rbytes,
                               const int *rc, const int *rd, const MPI_Datatype *rt,
                               MPI_Comm comm)
{
    int size, err;
    MPI_Comm_size(comm, &size);
    if (sb == MPI_IN_PLACE) {
        unsigned char *copy = malloc(rbytes);
        memcpy(copy, rb, rbytes);
        err = reference_alltoallw(copy, rc, rd, rt, rb, rbytes, rc, rd, rt, comm);
        free(copy);
        return err;
    }
    if (size > 1) return PMPI_Alltoallw(sb, sc, sd, st, rb, rc, rd, rt, comm);
    return PMPI_Sendrecv((const char *)sb + sd[0], sc[0], st[0], 0, 0, rb + rd[0], rc[0], rt[0],
                         0, 0, comm, MPI_STATUS_IGNORE);
}

int run_alltoallw(MPI_Comm comm, const char *selection, int pattern, int displ, int in_place,
                  int starts, uint64_t seed)
{
    int rank, size, ok = 1, rc = MPI_SUCCESS;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *ints = malloc(4 * (size_t)size * sizeof(int));
    int *sc = ints, *sd = sc + size, *rcnt = sd + size, *rd = rcnt + size;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof(MPI_Datatype)), *rt = st + size;
    int64_t *sspan = malloc(2 * (size_t)size * sizeof(int64_t)), *rspan = sspan + size;
    for (int p = 0; p < size; p++) {
        const test_type *in = pair_type(seed, p, rank, in_place);
        const test_type *out = pair_type(seed, rank, p, in_place);
        rcnt[p] = pattern_count(pattern, seed, p, rank, size, in->size, in_place);
        rt[p] = in->recv;
        rspan[p] = rcnt[p] * in->recv_extent;
        sc[p] = pattern_count(pattern, seed, rank, p, size, out->size, in_place) * out->send_mult;
        st[p] = out->send;
        sspan[p] = sc[p] * out->send_extent;
    }
    size_t rbytes = byte_layout(displ, rspan, size, rd);
    size_t sbytes = byte_layout(displ, sspan, size, sd);
    unsigned char *sendbuf = malloc(sbytes), *got = malloc(rbytes), *want = malloc(rbytes);
    const void *sb = in_place ? MPI_IN_PLACE : sendbuf;
    XCHG_Request req = XCHG_REQUEST_NULL;
    if (starts) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "xchg_algorithm", selection);
        rc = XCHG_Alltoallw_init(sb, sc, sd, st, got, rcnt, rd, rt, comm, info, &req);
        MPI_Info_free(&info);
        if (rc != MPI_SUCCESS) ok = fail_msg("XCHG_Alltoallw_init: %d: %s", rc, XCHG_Last_error());
    }
    for (int call = 0; call < (starts ? starts : 1); call++) {
        fill_bytes(sendbuf, sbytes, seed + (uint64_t)call, rank, 2);
        fill_bytes(got, rbytes, seed + (uint64_t)call, rank, 3);
        memcpy(want, got, rbytes);
        if (starts) rc = req ? harness_start_and_wait(&req, call % 2) : rc;
        else rc = XCHG_Alltoallw(sb, sc, sd, st, got, rcnt, rd, rt, comm);
        int rrc = reference_alltoallw(sb, sc, sd, st, want, rbytes, rcnt, rd, rt, comm);
        if (rrc != MPI_SUCCESS) {
            char text[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rrc, text, &len);
            ok = ok && fail_msg("the reference PMPI_Alltoallw failed (%d: %s)", rrc, text);
        }
        if (rrc == MPI_SUCCESS) ok = ok && harness_check_call(comm, XCHG_ALLTOALLW, rc, selection, got, want, rbytes);
    }
    if (req) XCHG_Request_free(&req);
    free(sendbuf);
    free(got);
    free(want);
    free(ints);
    free(st);
    free(sspan);
    return ok;
}

/* ---- bad input ------------------------------------------------------------ */

enum { WBAD_NULL_TYPE, WBAD_NEG_COUNT, WBAD_NULL_TYPES, WBAD_UNCOMMITTED, NUM_WBAD };
static const char *const wbad_names[NUM_WBAD] = {
    "alltoallw: MPI_DATATYPE_NULL for one peer", "alltoallw: negative count for one peer",
    "alltoallw: recvtypes is NULL", "alltoallw: an uncommitted datatype for one peer"};
static const int wbad_class[NUM_WBAD] = {MPI_ERR_TYPE, MPI_ERR_COUNT, MPI_ERR_ARG, MPI_ERR_TYPE};

/* Each bad call must return its class with a message and leave the receive
 * buffer as it was; and MPI_DATATYPE_NULL for an empty block is accepted. */
int alltoallw_badinput_run(MPI_Comm comm, const char *layout_name, tally *t)
{
    int rank, size, all_ok = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *sendbuf = malloc(2 * (size_t)size * sizeof(int)), *recvbuf = malloc(2 * (size_t)size * sizeof(int));
    int *before = malloc(2 * (size_t)size * sizeof(int)), *ints = malloc(4 * (size_t)size * sizeof(int));
    int *sc = ints, *sd = sc + size, *rc_ = sd + size, *rd = rc_ + size;
    MPI_Datatype *st = malloc(2 * (size_t)size * sizeof(MPI_Datatype)), *rt = st + size;
    MPI_Datatype uncommitted; /* two ints, the signature of a block: never committed */
    MPI_Type_vector(2, 1, 1, MPI_INT, &uncommitted);
    for (int bad = 0; bad <= NUM_WBAD; bad++) {
        snprintf(current_case, sizeof current_case, "%s P=%d layout=%s",
                 bad < NUM_WBAD ? wbad_names[bad] : "alltoallw: MPI_DATATYPE_NULL, count 0",
                 size, layout_name);
        for (int p = 0; p < 2 * size; p++) sendbuf[p] = rank * 1000 + p, recvbuf[p] = before[p] = -1 - p;
        for (int p = 0; p < size; p++) {
            sc[p] = rc_[p] = 2;
            sd[p] = rd[p] = 2 * p * (int)sizeof(int);
            st[p] = rt[p] = MPI_INT;
            if (bad == NUM_WBAD && (p == 0 || rank == 0)) /* blocks to and from rank 0 empty */
                sc[p] = rc_[p] = 0, st[p] = rt[p] = MPI_DATATYPE_NULL;
        }
        const MPI_Datatype *rtypes = rt;
        if (bad == WBAD_NULL_TYPE) st[size - 1] = MPI_DATATYPE_NULL;
        if (bad == WBAD_NEG_COUNT) rc_[0] = -1;
        if (bad == WBAD_NULL_TYPES) rtypes = NULL;
        if (bad == WBAD_UNCOMMITTED) st[size - 1] = uncommitted, sc[size - 1] = 1;
        int rc = XCHG_Alltoallw(sendbuf, sc, sd, st, recvbuf, rc_, rd, rtypes, comm);
        int ok = 1, cls = -1;
        if (bad == NUM_WBAD) {
            if (rc != MPI_SUCCESS) ok = fail_msg("returned %d: %s", rc, XCHG_Last_error());
            for (int p = 0; p < size && ok; p++) {
                int empty = p == 0 || rank == 0;
                int want0 = empty ? before[2 * p] : p * 1000 + 2 * rank;
                int want1 = empty ? before[2 * p + 1] : p * 1000 + 2 * rank + 1;
                if (recvbuf[2 * p] != want0 || recvbuf[2 * p + 1] != want1)
                    ok = fail_msg("block from rank %d is wrong", p);
            }
        } else {
            if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
            if (cls != wbad_class[bad])
                ok = fail_msg("error class %d, expected %d (%s)", cls, wbad_class[bad], XCHG_Last_error());
            else if (!XCHG_Last_error()[0])
                ok = fail_msg("XCHG_Last_error() is empty");
            else if (memcmp(recvbuf, before, 2 * (size_t)size * sizeof(int)) != 0)
                ok = fail_msg("the receive buffer changed");
        }
        all_ok &= record_case(comm, ok, t);
    }
    MPI_Type_free(&uncommitted);
    free(sendbuf);
    free(recvbuf);
    free(before);
    free(ints);
    free(st);
    return all_ok;
}
