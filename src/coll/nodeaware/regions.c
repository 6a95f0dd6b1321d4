/*
 * Regions from the machine for locality_aware:groups=numa|socket (see
 * engine.h): which NUMA domain or socket every rank runs in.
 * With hwloc (found by pkg-config at configure time) each process asks its
 * own binding; otherwise the MPI is asked (Open MPI: OMPI_COMM_TYPE_NUMA /
 * _SOCKET; MPI-4, e.g. MPICH 4: MPI_COMM_TYPE_HW_GUIDED with
 * mpi_hw_resource_type NUMANode / Package).
 */
#include <stdlib.h>

#ifdef XCHG_HAVE_HWLOC
#include <hwloc.h>
#include <pthread.h>
#endif

#include "engine.h"
#include "../../core/error.h"

const char *const xchg_hier_region_names[] = {"numa", "socket", NULL};

#ifdef XCHG_HAVE_HWLOC
/* Ask hwloc which NUMA node / package this process is bound inside. */
static int hwloc_ask(int which)
{
    hwloc_topology_t topo;
    int found = -1;
    if (hwloc_topology_init(&topo) != 0) return -1;
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    if (hwloc_topology_load(topo) == 0 && bound &&
        hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) == 0) {
        hwloc_obj_type_t type = which == XCHG_HIER_NUMA ? HWLOC_OBJ_NUMANODE : HWLOC_OBJ_PACKAGE;
        int n = hwloc_get_nbobjs_by_type(topo, type);
        for (int i = 0; i < n && found < 0; i++) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(topo, type, i);
            if (obj->cpuset && hwloc_bitmap_isincluded(bound, obj->cpuset)) found = i;
        }
    }
    hwloc_bitmap_free(bound);
    hwloc_topology_destroy(topo);
    return found;
}

/* The index of the NUMA node / package this process is bound inside, or -1
 * (unbound, or bound across several). Asked once per process (loading the
 * topology takes milliseconds), under a lock: threads may build plans on
 * different communicators at once. A process that rebinds itself later is
 * not seen. */
static int hwloc_domain(int which)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static int asked[2], answer[2];
    const int slot = which == XCHG_HIER_NUMA ? 0 : 1;
    pthread_mutex_lock(&lock);
    if (!asked[slot]) {
        answer[slot] = hwloc_ask(which);
        asked[slot] = 1;
    }
    int found = answer[slot];
    pthread_mutex_unlock(&lock);
    return found;
}
#endif

/*
 * domain_of[r]: a number shared by the ranks of one NUMA domain or socket, or
 * -1 when it cannot be told (collective over ctx->comm). With hwloc: the
 * domain the process is bound inside (-1 when unbound: Open MPI's own split
 * puts every unbound process in a domain of its own, which is wrong on a
 * one-domain machine). Without hwloc: the lowest rank of the MPI's split,
 * which has no nonblocking form: inside a task, -1 everywhere.
 */
int xchg_hier_hw_domains(xchg_context *ctx, int which, int *domain_of)
{
    MPI_Comm dom = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    int rc = MPI_SUCCESS, lowest = -1;
    (void)which;
#if defined(XCHG_HAVE_HWLOC)
    lowest = hwloc_domain(which);
    XCHG_CHECK(xchg_allgather(&lowest, 1, MPI_INT, domain_of, 1, MPI_INT, ctx->comm));
    return MPI_SUCCESS;
#else
    /* MPI_Comm_split_type has no nonblocking form: inside a task (a
     * nonblocking call building its plan) the domains cannot be told. */
    if (xchg_task_current() == NULL) {
#if defined(OPEN_MPI)
        XCHG_CHECK(MPI_Comm_split_type(ctx->comm,
                                       which == XCHG_HIER_NUMA ? OMPI_COMM_TYPE_NUMA
                                                               : OMPI_COMM_TYPE_SOCKET,
                                       ctx->rank, MPI_INFO_NULL, &dom));
#elif defined(MPI_COMM_TYPE_HW_GUIDED)
        XCHG_CHECK(MPI_Info_create(&info));
        XCHG_CHECK(MPI_Info_set(info, "mpi_hw_resource_type",
                                which == XCHG_HIER_NUMA ? "NUMANode" : "Package"));
        XCHG_CHECK(MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_HW_GUIDED, ctx->rank, info,
                                       &dom));
#endif
    }
#endif
    int known = dom != MPI_COMM_NULL, all_known = 0;
    if (known) XCHG_CHECK(xchg_allreduce(&ctx->rank, &lowest, 1, MPI_INT, MPI_MIN, dom));
    XCHG_CHECK(xchg_allreduce(&known, &all_known, 1, MPI_INT, MPI_MIN, ctx->comm));
    if (!all_known) lowest = -1;
    XCHG_CHECK(xchg_allgather(&lowest, 1, MPI_INT, domain_of, 1, MPI_INT, ctx->comm));
fail:
    if (dom != MPI_COMM_NULL) MPI_Comm_free(&dom);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    return rc;
}

