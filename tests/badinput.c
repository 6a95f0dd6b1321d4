/*
 * Bad input under MPI_ERRORS_RETURN, on every rank at once: each call must
 * return an error of the expected class, leave a message in
 * XCHG_Last_error(), and leave the receive buffer unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"

enum { BAD_NEG_SEND, BAD_NEG_RECV, BAD_NULL_SEND, BAD_NULL_RECV, BAD_SENDTYPE_NULL,
       BAD_RECVTYPE_NULL, BAD_UNKNOWN_ENV, BAD_PARAM_ENV, BAD_RANGE_ENV, NUM_BAD };
static const char *const bad_names[NUM_BAD] = {
    "negative send count", "negative receive count", "NULL send buffer",
    "NULL receive buffer", "sendtype MPI_DATATYPE_NULL", "recvtype MPI_DATATYPE_NULL",
    "unknown algorithm in the environment", "unknown parameter in the environment",
    "parameter out of range in the environment"};
static const int bad_class[NUM_BAD] = {MPI_ERR_COUNT, MPI_ERR_COUNT, MPI_ERR_BUFFER,
                                       MPI_ERR_BUFFER, MPI_ERR_TYPE, MPI_ERR_TYPE, MPI_ERR_ARG,
                                       MPI_ERR_ARG, MPI_ERR_ARG};
static const char *const env_names[XCHG_NUM_COLL] = {
    [XCHG_ALLTOALL] = "XCHG_ALLTOALL", [XCHG_ALLTOALLV] = "XCHG_ALLTOALLV",
    [XCHG_ALLGATHER] = "XCHG_ALLGATHER", [XCHG_NEIGHBOR_ALLTOALLV] = "XCHG_NEIGHBOR_ALLTOALLV",
    [XCHG_ALLTOALLW] = "XCHG_ALLTOALLW", [XCHG_ALLGATHERV] = "XCHG_ALLGATHERV"};

static int check_error(int rc, int want_class, const char *what)
{
    int cls = -1;
    if (rc == MPI_SUCCESS) return fail_msg("%s: returned MPI_SUCCESS", what);
    MPI_Error_class(rc, &cls);
    if (cls != want_class)
        return fail_msg("%s: error class %d, expected %d (%s)", what, cls, want_class,
                        XCHG_Last_error());
    if (!XCHG_Last_error()[0]) return fail_msg("%s: XCHG_Last_error() is empty", what);
    return 1;
}

/* A bad selection for the environment variable: an unknown algorithm, an
 * unknown parameter, or an integer parameter below its minimum (the first
 * algorithm that has one; else the unknown parameter again). */
static const char *bad_env_text(xchg_coll coll, int bad)
{
    static char text[256];
    const xchg_algorithm *first = xchg_registry_get(coll, 0);
    snprintf(text, sizeof text, bad == BAD_UNKNOWN_ENV ? "no_such_algorithm" : "%s:no_such_param=1",
             first->name);
    for (int a = 0; bad == BAD_RANGE_ENV && a < xchg_registry_count(coll); a++) {
        const xchg_algorithm *algo = xchg_registry_get(coll, a);
        for (int i = 0; i < algo->num_params; i++)
            if (algo->params[i].kind == XCHG_PARAM_INT) {
                snprintf(text, sizeof text, "%s:%s=%lld", algo->name, algo->params[i].name,
                         (long long)algo->params[i].min - 1);
                return text;
            }
    }
    return text;
}

/* One bad collective call; returns this rank's verdict. */
static int bad_call(MPI_Comm comm, xchg_coll coll, int bad)
{
    int rank, size, ok;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int n = 3;
    size_t elems = (size_t)size * n;
    int *sendbuf = malloc(elems * sizeof(int)), *recvbuf = malloc(elems * sizeof(int));
    int *before = malloc(elems * sizeof(int));
    int *sc = malloc(4 * (size_t)size * sizeof(int)), *sd = sc + size, *rcnt = sd + size, *rd = rcnt + size;
    for (size_t i = 0; i < elems; i++) sendbuf[i] = (int)i, recvbuf[i] = before[i] = -7 - (int)i;
    for (int p = 0; p < size; p++) sc[p] = rcnt[p] = n, sd[p] = rd[p] = n * p;
    int scount = n, rcount = n;
    void *sb = sendbuf, *rb = recvbuf;
    MPI_Datatype st = MPI_INT, rt = MPI_INT;
    switch (bad) {
    case BAD_NEG_SEND: sc[size - 1] = scount = -1; break;
    case BAD_NEG_RECV: rcnt[0] = rcount = -2; break;
    case BAD_NULL_SEND: sb = NULL; break;
    case BAD_NULL_RECV: rb = NULL; break;
    case BAD_SENDTYPE_NULL: st = MPI_DATATYPE_NULL; break;
    case BAD_RECVTYPE_NULL: rt = MPI_DATATYPE_NULL; break;
    case BAD_UNKNOWN_ENV:
    case BAD_PARAM_ENV:
    case BAD_RANGE_ENV:
        XCHG_Comm_set_algorithm(comm, coll_name(coll), NULL);
        setenv(env_names[coll], bad_env_text(coll, bad), 1);
        break;
    }
    int rc;
    if (coll == XCHG_ALLTOALLV) rc = XCHG_Alltoallv(sb, sc, sd, st, rb, rcnt, rd, rt, comm);
    else if (coll == XCHG_ALLTOALL) rc = XCHG_Alltoall(sb, scount, st, rb, rcount, rt, comm);
    else if (coll == XCHG_ALLGATHERV)
        rc = XCHG_Allgatherv(sb, bad == BAD_NEG_SEND ? scount : rcnt[rank], st, rb, rcnt, rd, rt,
                             comm);
    else rc = XCHG_Allgather(sb, scount, st, rb, rcount, rt, comm);
    if (bad >= BAD_UNKNOWN_ENV) unsetenv(env_names[coll]);
    ok = check_error(rc, bad_class[bad], bad_names[bad]);
    if (ok && memcmp(recvbuf, before, elems * sizeof(int)) != 0)
        ok = fail_msg("%s: the receive buffer changed", bad_names[bad]);
    free(sendbuf);
    free(recvbuf);
    free(before);
    free(sc);
    return ok;
}

/* A bad selection string must fail with MPI_ERR_ARG and keep the previous choice. */
static int bad_selection(MPI_Comm comm, xchg_coll coll, const char *good, const char *text,
                         int want_names)
{
    char now[512];
    int ok = check_error(XCHG_Comm_set_algorithm(comm, coll_name(coll), text), MPI_ERR_ARG, text);
    if (ok && want_names) { /* the message lists every valid name */
        int n = xchg_registry_count(coll);
        for (int a = 0; a < n && ok; a++)
            if (!strstr(XCHG_Last_error(), xchg_registry_get(coll, a)->name))
                ok = fail_msg("'%s': message does not list '%s': %s", text,
                              xchg_registry_get(coll, a)->name, XCHG_Last_error());
    }
    XCHG_Comm_get_algorithm(comm, coll_name(coll), 0, 8, now, sizeof now);
    if (ok && strcmp(now, good) != 0)
        ok = fail_msg("after rejecting '%s' the choice is '%s', expected '%s'", text, now, good);
    XCHG_Comm_set_algorithm(comm, coll_name(coll), good); /* no knock-on failures */
    return ok;
}

/*
 * A parameter whose range ends at P, given beyond P (as an environment
 * selection meant for a larger communicator would be), is clamped to
 * max(P, its minimum), per communicator and from the environment alike, and
 * the call runs; XCHG_Comm_get_algorithm shows the clamped value.
 */
static int clamped_selection(MPI_Comm comm, xchg_coll coll, const char *good,
                             const xchg_algorithm *algo, int param, int size)
{
    const xchg_param_desc *p = &algo->params[param];
    long long want = size > p->min ? size : p->min;
    char text[512], expect[64], now[512];
    int ok = 1;
    snprintf(text, sizeof text, "%s:%s=%lld", algo->name, p->name, want + 3);
    snprintf(expect, sizeof expect, "%s=%lld", p->name, want);
    for (int from_env = 0; from_env < 2 && ok; from_env++) {
        int rc;
        if (from_env) {
            XCHG_Comm_set_algorithm(comm, coll_name(coll), NULL);
            setenv(env_names[coll], text, 1);
            rc = XCHG_Comm_get_algorithm(comm, coll_name(coll), 0, 8, now, sizeof now);
        } else {
            rc = XCHG_Comm_set_algorithm(comm, coll_name(coll), text);
            if (rc == MPI_SUCCESS) rc = XCHG_Comm_get_algorithm(comm, coll_name(coll), 0, 8, now,
                                                                sizeof now);
        }
        if (rc != MPI_SUCCESS)
            ok = fail_msg("'%s' (%s) refused at P=%d: %s", text, from_env ? "environment" : "set",
                          size, XCHG_Last_error());
        else if (!strstr(now, expect))
            ok = fail_msg("'%s' at P=%d became '%s', expected %s", text, size, now, expect);
        unsetenv(env_names[coll]);
    }
    XCHG_Comm_set_algorithm(comm, coll_name(coll), good);
    return ok;
}

static void bad_selections(MPI_Comm comm, xchg_coll coll, tally *t)
{
    int size;
    char text[512], good[512];
    MPI_Comm_size(comm, &size);
    /* A known-good choice first: the first algorithm with its defaults. */
    const xchg_algorithm *first = xchg_registry_get(coll, 0);
    XCHG_Comm_set_algorithm(comm, coll_name(coll), first->name);
    XCHG_Comm_get_algorithm(comm, coll_name(coll), 0, 8, good, sizeof good);

    record_case(comm, bad_selection(comm, coll, good, "no_such_algorithm", 1), t);
    record_case(comm, check_error(XCHG_Comm_set_algorithm(comm, "alltoallx", first->name),
                                  MPI_ERR_ARG, "unknown collective"), t);
    for (int a = 0; a < xchg_registry_count(coll); a++) {
        const xchg_algorithm *algo = xchg_registry_get(coll, a);
        snprintf(text, sizeof text, "%s:no_such_param=1", algo->name);
        record_case(comm, bad_selection(comm, coll, good, text, 0), t);
        for (int i = 0; i < algo->num_params; i++) {
            const xchg_param_desc *p = &algo->params[i];
            if (p->kind == XCHG_PARAM_INT) {
                snprintf(text, sizeof text, "%s:%s=%lld", algo->name, p->name, (long long)p->min - 1);
                record_case(comm, bad_selection(comm, coll, good, text, 0), t);
                if (p->max == XCHG_RANGE_P)
                    record_case(comm, clamped_selection(comm, coll, good, algo, i, size), t);
                snprintf(text, sizeof text, "%s:%s=12abc", algo->name, p->name);
            } else {
                snprintf(text, sizeof text, "%s:%s=no_such_value", algo->name, p->name);
            }
            record_case(comm, bad_selection(comm, coll, good, text, 0), t);
        }
    }
    /* A refusal that does not come from the registry's own applicable(): the
     * harness knows pairwise:order=xor needs a power of two. */
    if (xchg_registry_find(coll, "pairwise") && (size & (size - 1)) != 0)
        record_case(comm, bad_selection(comm, coll, good, "pairwise:order=xor", 0), t);
    XCHG_Comm_set_algorithm(comm, coll_name(coll), NULL);
}

/* Allgatherv's own: missing recvcounts or displs (MPI_ERR_ARG), and a
 * send block whose size differs from recvcounts[rank] (MPI_ERR_TRUNCATE);
 * nothing written. */
static int bad_allgatherv(MPI_Comm comm, int which)
{
    static const char *const what[3] = {"recvcounts NULL", "displs NULL",
                                        "sendcount differs from recvcounts[rank]"};
    static const int want[3] = {MPI_ERR_ARG, MPI_ERR_ARG, MPI_ERR_TRUNCATE};
    int rank, size, ok;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *counts = malloc(2 * (size_t)size * sizeof(int)), *displs = counts + size;
    int *recvbuf = malloc(2 * (size_t)size * sizeof(int) + sizeof(int));
    int *before = malloc(2 * (size_t)size * sizeof(int) + sizeof(int)), sendbuf[3] = {1, 2, 3};
    for (int p = 0; p < 2 * size + 1; p++) recvbuf[p] = before[p] = -3 - p;
    for (int p = 0; p < size; p++) counts[p] = p % 3 == 1 ? 0 : 2, displs[p] = 2 * (size - 1 - p);
    int rc = XCHG_Allgatherv(sendbuf, which == 2 ? counts[rank] + 1 : counts[rank], MPI_INT,
                             recvbuf, which == 0 ? NULL : counts, which == 1 ? NULL : displs,
                             MPI_INT, comm);
    ok = check_error(rc, want[which], what[which]);
    if (ok && memcmp(recvbuf, before, (2 * (size_t)size + 1) * sizeof(int)) != 0)
        ok = fail_msg("%s: the receive buffer changed", what[which]);
    free(counts);
    free(recvbuf);
    free(before);
    return ok;
}

int badinput_run(MPI_Comm comm, const char *layout_name, tally *t)
{
    int size;
    MPI_Comm_size(comm, &size);
    for (int which = 0; which < 3; which++) {
        snprintf(current_case, sizeof current_case, "bad input: allgatherv case %d P=%d layout=%s",
                 which, size, layout_name);
        record_case(comm, bad_allgatherv(comm, which), t);
    }
    for (int coll = 0; coll < XCHG_NUM_COLL; coll++) {
        /* alltoallw's bad input has its own cases (tests/alltoallw.c) */
        if (!xchg_coll_is_dense(coll) || coll == XCHG_ALLTOALLW) continue;
        for (int bad = 0; bad < NUM_BAD; bad++) {
            snprintf(current_case, sizeof current_case, "bad input: %s %s P=%d layout=%s",
                     coll_name((xchg_coll)coll), bad_names[bad], size, layout_name);
            record_case(comm, bad_call(comm, (xchg_coll)coll, bad), t);
        }
        snprintf(current_case, sizeof current_case, "bad selection: %s P=%d layout=%s",
                 coll_name((xchg_coll)coll), size, layout_name);
        bad_selections(comm, (xchg_coll)coll, t);
    }
    return 0;
}
