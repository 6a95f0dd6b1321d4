/*
 * Datatypes a nonblocking or persistent call keeps alive (args.h:
 * xchg_args_hold_types): MPI lets a program free its datatypes while such a
 * call is in flight, so the call's arguments use duplicates (MPI_Type_dup),
 * freed with the arguments (xchg_args_free).
 */
#include "args.h"

#include <stdlib.h>

#include "error.h"

/* Replace *type by a duplicate held by the args, unless predefined or
 * already one of the args' own duplicates. */
static int hold_type(xchg_args *a, MPI_Datatype *type, size_t room)
{
    int rc, ints, addrs, types, combiner;
    if (*type == MPI_DATATYPE_NULL) return MPI_SUCCESS;
    XCHG_CHECK(MPI_Type_get_envelope(*type, &ints, &addrs, &types, &combiner));
    if (combiner == MPI_COMBINER_NAMED) return MPI_SUCCESS;
    for (int i = 0; i < a->num_held; i++)
        if (a->held_types[i] == *type) return MPI_SUCCESS;
    if (!a->held_types) XCHG_ALLOC(a->held_types, room * sizeof(MPI_Datatype));
    XCHG_CHECK(MPI_Type_dup(*type, &a->held_types[a->num_held]));
    *type = a->held_types[a->num_held++];
fail:
    return rc;
}

int xchg_args_hold_types(xchg_args *a)
{
    int rc = MPI_SUCCESS;
    size_t room = 2 + (a->owned_types ? 2 * (size_t)a->size : 0);
    XCHG_CHECK(hold_type(a, &a->send.type.type, room));
    XCHG_CHECK(hold_type(a, &a->recv.type.type, room));
    for (int side = 0; side < 2; side++) { /* alltoallw: the per-peer types */
        const xchg_side *sd = side ? &a->recv : &a->send;
        if (!sd->types) continue; /* none (in place: the send side is the receive's) */
        xchg_type_info *infos = a->owned_types + (sd->types - a->owned_types);
        MPI_Datatype last = MPI_DATATYPE_NULL, last_held = MPI_DATATYPE_NULL;
        for (int p = 0; p < a->size; p++) {
            if (p > 0 && infos[p].type == last) { /* equal neighbours: one duplicate */
                infos[p].type = last_held;
                continue;
            }
            last = infos[p].type;
            XCHG_CHECK(hold_type(a, &infos[p].type, room));
            last_held = infos[p].type;
        }
    }
fail:
    return rc;
}
