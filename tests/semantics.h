/*
 * MPI's semantics for xchg's nonblocking and persistent collectives
 * (issue 25, section 3): tests/semantics.c drives the cases, watchdog and
 * options; tests/semantics_layout.c describes each collective's buffers (the
 * layout, the datasets and their PMPI references); tests/semantics_colls.c
 * makes xchg's blocking, nonblocking or persistent call, or PMPI's (the
 * reference); tests/semantics_dropin.c is the scenario in MPI's own calls,
 * for the drop-in library.
 */
#ifndef XCHG_TESTS_SEMANTICS_H
#define XCHG_TESTS_SEMANTICS_H

#include <mpi.h>
#include <stddef.h>

/* Distinct send datasets (and their references): consecutive starts of a
 * persistent request and the outstanding requests of one case differ. */
#define SEM_NDATA 5

/* How a call is made. */
typedef enum { FORM_BLOCKING, FORM_NONBLOCKING, FORM_INIT, FORM_REFERENCE } sem_form;

/* One collective's buffers on one communicator size: counts, displacements
 * and types fixed for the whole run; the datasets vary. Displacements leave
 * gaps, and the receive side lists blocks in reverse order, so that a byte
 * written where it must not be shows up in the comparison. */
typedef struct sem_layout {
    int P, rank;
    int count;                       /* alltoall, allgather: ints per block */
    int sendcount;                   /* allgatherv: this rank's block */
    int *scounts, *sdispls, *rcounts, *rdispls; /* v and w (w: byte displacements) */
    MPI_Datatype *stypes, *rtypes;   /* alltoallw */
    MPI_Datatype pair;               /* alltoallw: 2 contiguous ints */
    int degree;                      /* neighbor: 2 sources, 2 destinations (a ring) */
    int srcs[2], dsts[2];
    size_t send_bytes, recv_bytes;
    char *data[SEM_NDATA];           /* send datasets */
    char *ref[SEM_NDATA];            /* PMPI's result for each dataset */
} sem_layout;

typedef struct sem_coll {
    const char *name;         /* as xchg names it: "alltoallv" */
    const char *env;          /* the environment variable that selects: "XCHG_ALLTOALLV" */
    int neighbor;             /* needs a distributed-graph communicator */
    void (*layout)(sem_layout *L, int P, int rank, int scale);
    /* The call: send/recv buffers of the layout's sizes; info and request
     * (an XCHG_Request * through xchg, an MPI_Request * in the drop-in test)
     * for FORM_INIT and FORM_NONBLOCKING; returns the MPI error code. */
    int (*call)(const sem_layout *L, sem_form form, const void *send, void *recv, MPI_Comm comm,
                MPI_Info info, void *request);
} sem_coll;

/* The collectives in the order they are tested (semantics_colls.c: xchg's
 * calls; semantics_dropin.c: MPI's). */
extern const sem_coll sem_colls[];
extern const int sem_num_colls;

/* The layouts (semantics_layout.c). */
void sem_layout_alltoall(sem_layout *L, int P, int rank, int scale);
void sem_layout_alltoallv(sem_layout *L, int P, int rank, int scale);
void sem_layout_alltoallw(sem_layout *L, int P, int rank, int scale);
void sem_layout_allgather(sem_layout *L, int P, int rank, int scale);
void sem_layout_allgatherv(sem_layout *L, int P, int rank, int scale);
void sem_layout_neighbor(sem_layout *L, int P, int rank, int scale);

/* Receive buffers start filled with this byte (gaps must keep it). */
#define SEM_SENTINEL 0xEE

/* The datasets (a function of dataset, rank and offset) and their
 * references through PMPI on `refcomm` (a communicator of the layout's
 * shape on which xchg is never called). */
int sem_layout_prepare(const sem_coll *c, sem_layout *L, MPI_Comm refcomm);
void sem_layout_free(sem_layout *L);

/* A ring distributed-graph communicator over `base` (sources rank-1, rank+1;
 * destinations rank+1, rank-1). */
int sem_ring_create(MPI_Comm base, MPI_Comm *ring);

#endif
