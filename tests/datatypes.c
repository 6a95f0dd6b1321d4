/*
 * The datatype pairs the harness sends and receives with: basic types, a
 * non-contiguous vector, a resized type with holes, and pairs whose send and
 * receive types differ but have the same type signature.
 */
#include <stdlib.h>

#include "harness.h"

static int add(test_type *t, const char *name, MPI_Datatype send, MPI_Datatype recv, int mult)
{
    MPI_Aint lb;
    int size;
    t->name = name;
    t->send = send;
    t->recv = recv;
    t->send_mult = mult;
    MPI_Type_size(recv, &size);
    t->size = size;
    MPI_Type_get_extent(send, &lb, &t->send_extent);
    MPI_Type_get_extent(recv, &lb, &t->recv_extent);
    return 1;
}

int types_create(test_type **out, int *count)
{
    test_type *t = calloc(8, sizeof *t);
    int n = 0;
    MPI_Datatype vec, holes_inner, holes, pair, int3;

    /* 3 ints with a stride of 2 ints: 12 bytes of data over an extent of 20. */
    MPI_Type_vector(3, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    /* One int at 0 and two at 12, resized to an extent of 28: holes at 4..12 and 20..28. */
    int lens[2] = {1, 2}, disps[2] = {0, 3};
    MPI_Type_indexed(2, lens, disps, MPI_INT, &holes_inner);
    MPI_Type_create_resized(holes_inner, 0, 28, &holes);
    MPI_Type_free(&holes_inner);
    MPI_Type_commit(&holes);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Type_contiguous(3, MPI_INT, &int3);
    MPI_Type_commit(&int3);

    n += add(&t[n], "byte", MPI_BYTE, MPI_BYTE, 1);
    n += add(&t[n], "int", MPI_INT, MPI_INT, 1);
    n += add(&t[n], "double", MPI_DOUBLE, MPI_DOUBLE, 1);
    n += add(&t[n], "vector", vec, vec, 1);
    n += add(&t[n], "resized_holes", holes, holes, 1);
    n += add(&t[n], "2int->contig2", MPI_INT, pair, 2);
    n += add(&t[n], "vector->contig3", vec, int3, 1);
    *out = t;
    *count = n;
    return MPI_SUCCESS;
}

static void free_derived(MPI_Datatype *type)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(*type, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED) MPI_Type_free(type);
}

void types_free(test_type *t, int count)
{
    /* Each derived type appears as the receive type of exactly one entry,
     * except `vec`, which is also the send type of vector->contig3. */
    for (int i = 0; i < count; i++) free_derived(&t[i].recv);
    free(t);
}
