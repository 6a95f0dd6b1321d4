/*
 * The MPI library's own persistent collectives, for `mpi`'s persistent
 * requests (src/coll/mpi/mpi.c, src/coll/allgatherv/mpi.c): MPI-4's
 * PMPI_Alltoall_init, ... (MPICH 4), or Open MPI 4.1's PMPIX_Alltoall_init,
 * ... (<mpi-ext.h>, its "pcollreq" extension), whichever the build found
 * with all five dense collectives (CMakeLists.txt). XCHG_LIBRARY_INIT(Alltoall)
 * names the init of one; undefined where the MPI has none (or they are not
 * fit: below), and `mpi` then posts the library's nonblocking collective at
 * each start.
 *
 * Why: a persistent request of the library keeps what the library builds
 * for a call (Open MPI's libnbc schedule) from start to start, where a
 * nonblocking call builds it again each time. Posting MPI_Iallgather at
 * each start took 1.03-1.30x Open MPI's own persistent MPIX_Allgather_init
 * at 4 and 8 ranks, 16 B - 64 KiB (the first run of
 * docs/results/selection/online/persistent-init/, before this file).
 */
#ifndef XCHG_COLL_MPI_LIBRARY_PERSISTENT_H
#define XCHG_COLL_MPI_LIBRARY_PERSISTENT_H

#include "../../core/pmpi.h"
#ifdef XCHG_HAVE_MPI_EXT_H
#include <mpi-ext.h>
#endif

/* Not MPICH before 4.1, whose persistent collectives are not fit to stand
 * in for its nonblocking ones; in Debian's 4.0.2 (checked with programs of
 * MPICH calls alone): its persistent allgather's recursive doubling (the
 * default on 2^k ranks) gives wrong data from the second start on, and with
 * a derived datatype drives its reference count below zero
 * (pmodels/mpich#6423, fixed in 4.1); MPI_Testall of a started persistent
 * collective request fails with MPI_ERR_IN_STATUS (MPI_Test does not:
 * xchg_testall, core/wait.h); and freeing one before a persistent receive
 * from MPI_PROC_NULL made after it hangs the next persistent collective
 * (the drop-in frees its handles first: src/interpose/requests.h). */
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
#elif defined(XCHG_HAVE_MPI_PERSISTENT_COLLECTIVES)
#define XCHG_LIBRARY_INIT(coll) PMPI_##coll##_init
#elif defined(XCHG_HAVE_MPIX_PERSISTENT_COLLECTIVES)
#define XCHG_LIBRARY_INIT(coll) PMPIX_##coll##_init
#endif

#endif
