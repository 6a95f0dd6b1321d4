/*
 * The calls of the semantics test through xchg (tests/semantics.c): for each
 * collective, one function that makes the call in each form (blocking,
 * nonblocking, persistent init, or the MPI library's own through PMPI, the
 * reference); `request` is an XCHG_Request *.
 */
#include "semantics.h"
#include "xchg.h"

static int call_alltoall(const sem_layout *L, sem_form form, const void *s, void *r,
                         MPI_Comm comm, MPI_Info info, void *request)
{
    XCHG_Request *req = request;
    int n = L->count;
    switch (form) {
    case FORM_BLOCKING: return XCHG_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
    case FORM_NONBLOCKING: return XCHG_Ialltoall(s, n, MPI_INT, r, n, MPI_INT, comm, req);
    case FORM_INIT: return XCHG_Alltoall_init(s, n, MPI_INT, r, n, MPI_INT, comm, info, req);
    default: return PMPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, comm);
    }
}

static int call_alltoallv(const sem_layout *L, sem_form form, const void *s, void *r,
                          MPI_Comm comm, MPI_Info info, void *request)
{
    XCHG_Request *req = request;
    const int *sc = L->scounts, *sd = L->sdispls, *rc = L->rcounts, *rd = L->rdispls;
    switch (form) {
    case FORM_BLOCKING: return XCHG_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    case FORM_NONBLOCKING:
        return XCHG_Ialltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, req);
    case FORM_INIT:
        return XCHG_Alltoallv_init(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, info, req);
    default: return PMPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    }
}

static int call_alltoallw(const sem_layout *L, sem_form form, const void *s, void *r,
                          MPI_Comm comm, MPI_Info info, void *request)
{
    XCHG_Request *req = request;
    const int *sc = L->scounts, *sd = L->sdispls, *rc = L->rcounts, *rd = L->rdispls;
    const MPI_Datatype *st = L->stypes, *rt = L->rtypes;
    switch (form) {
    case FORM_BLOCKING: return XCHG_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
    case FORM_NONBLOCKING: return XCHG_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, comm, req);
    case FORM_INIT: return XCHG_Alltoallw_init(s, sc, sd, st, r, rc, rd, rt, comm, info, req);
    default: return PMPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
    }
}

static int call_allgather(const sem_layout *L, sem_form form, const void *s, void *r,
                          MPI_Comm comm, MPI_Info info, void *request)
{
    XCHG_Request *req = request;
    int n = L->count;
    switch (form) {
    case FORM_BLOCKING: return XCHG_Allgather(s, n, MPI_INT, r, n, MPI_INT, comm);
    case FORM_NONBLOCKING: return XCHG_Iallgather(s, n, MPI_INT, r, n, MPI_INT, comm, req);
    case FORM_INIT: return XCHG_Allgather_init(s, n, MPI_INT, r, n, MPI_INT, comm, info, req);
    default: return PMPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, comm);
    }
}

static int call_allgatherv(const sem_layout *L, sem_form form, const void *s, void *r,
                           MPI_Comm comm, MPI_Info info, void *request)
{
    XCHG_Request *req = request;
    int n = L->sendcount;
    const int *rc = L->rcounts, *rd = L->rdispls;
    switch (form) {
    case FORM_BLOCKING: return XCHG_Allgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, comm);
    case FORM_NONBLOCKING:
        return XCHG_Iallgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, comm, req);
    case FORM_INIT:
        return XCHG_Allgatherv_init(s, n, MPI_INT, r, rc, rd, MPI_INT, comm, info, req);
    default: return PMPI_Allgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, comm);
    }
}

static int call_neighbor(const sem_layout *L, sem_form form, const void *s, void *r,
                         MPI_Comm comm, MPI_Info info, void *request)
{
    XCHG_Request *req = request;
    const int *sc = L->scounts, *sd = L->sdispls, *rc = L->rcounts, *rd = L->rdispls;
    switch (form) {
    case FORM_BLOCKING:
        return XCHG_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    case FORM_NONBLOCKING:
        return XCHG_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, req);
    case FORM_INIT:
        return XCHG_Neighbor_alltoallv_init(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm, info,
                                            req);
    default: return PMPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, comm);
    }
}

const sem_coll sem_colls[] = {
    {"alltoall", "XCHG_ALLTOALL", 0, sem_layout_alltoall, call_alltoall},
    {"alltoallv", "XCHG_ALLTOALLV", 0, sem_layout_alltoallv, call_alltoallv},
    {"alltoallw", "XCHG_ALLTOALLW", 0, sem_layout_alltoallw, call_alltoallw},
    {"allgather", "XCHG_ALLGATHER", 0, sem_layout_allgather, call_allgather},
    {"allgatherv", "XCHG_ALLGATHERV", 0, sem_layout_allgatherv, call_allgatherv},
    {"neighbor_alltoallv", "XCHG_NEIGHBOR_ALLTOALLV", 1, sem_layout_neighbor, call_neighbor},
};
const int sem_num_colls = (int)(sizeof sem_colls / sizeof sem_colls[0]);

