/*
 * MPI's semantics for xchg's nonblocking and persistent collectives, for
 * every registered algorithm of every collective and automatic selection
 * (issue 25, section 3). Cases, each under a watchdog:
 *
 *   scenario    rank 1 sends a 4 MiB message (blocking MPI_Send, which needs
 *               the matching receive) to rank 0 BEFORE it starts the
 *               collective; rank 0 starts the collective, THEN receives that
 *               message, then waits; the other ranks start and wait. A start
 *               that waits for another rank deadlocks here, as MPI allows
 *               the program (MPI-4.1, 6.12: a nonblocking collective call
 *               returns without waiting for other ranks; MPI_Start too).
 *               Five forms: the nonblocking call on a fresh communicator
 *               (the first xchg call on a new duplicate, so context creation
 *               and plan building happen in the task), on a warm one
 *               (after a blocking call of the same shape) and on one warmed
 *               by the MPI library's own collective ("newplan": the context
 *               is ready, so the start itself builds the algorithm's plan,
 *               sub-communicators included), and a persistent
 *               request initialized on a fresh and on a warm communicator
 *               (the init may synchronize; the start may not). After the
 *               nonblocking fresh and newplan steps a blocking call of the
 *               same shape reuses the plan the task built.
 *   reverse     three nonblocking calls outstanding on one communicator, with
 *               different data, started in the same order everywhere and
 *               completed in reverse order; then completed by XCHG_Test
 *               polling in a rank-dependent order; then three persistent
 *               requests started in order and waited in reverse order.
 *   persistent  one persistent request started --starts times (default
 *               2000 for every algorithm: the slowest takes about 0.5 s at
 *               4 ranks here), the send data changed between consecutive
 *               starts (SEM_NDATA datasets in turn, each result checked).
 *
 * Every result is compared byte for byte (receive-buffer gaps included) with
 * the MPI library's own collective through PMPI on the same data. The
 * algorithm is forced by the environment variable (XCHG_ALLTOALLV=name...,
 * set in this process on every rank, read by xchg at each call: it needs no
 * xchg call on a fresh communicator) for the nonblocking forms and by the
 * info key "xchg_algorithm" for the persistent ones; "auto" is the automatic
 * selection. The nonblocking forms check that the forced algorithm ran
 * (XCHG_Comm_get_algorithm), on a fresh communicator too: only the
 * algorithms that create windows (shm_direct, rma_direct) may run the
 * MPI library's own collective there; the node-aware family, ParLinNa and
 * locality build their sub-communicators inside the task (src/core/vcomm.h).
 *
 * A hang becomes a failure: every step re-arms alarm(--timeout); when it
 * fires, the rank prints "HANG collective:algorithm case" to stderr and
 * exits, which ends the job (mpirun / mpiexec kill the other ranks).
 *
 * Options: --only=COLL[:ALGO] (one collective, or one algorithm; ALGO may be
 * "auto"), --case=scenario|reverse|persistent (or one step of a case:
 * --case=scenario/persistent-warm, as PASS lines name them), --timeout=SECONDS (default
 * 60), --skip=ENTRY,... (what not to run: a case, a step, COLL:ALGO, or
 * COLL:ALGO:STEP), --starts=N, --scale=K (block sizes times K), --big=BYTES (the side
 * message), --list (the collective:algorithm cases, then exit). Prints PASS /
 * FAIL per step (with its seconds), SKIP per case that cannot run here, and
 * "N passed, N failed" last (what scripts/run-tests reads).
 * Run with P >= 2; XCHG_VIRTUAL_NODES makes the node-aware algorithms do
 * their inter-node rounds.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "semantics.h"
#include "xchg.h"

static struct {
    const char *only_coll, *only_algo, *only_case, *skip;
    int timeout, starts, scale, list;
    long big;
} opt = {NULL, NULL, NULL, NULL, 60, 2000, 1, 0, 4L << 20};

static int world_rank, world_size;
static int passed, failed, skipped;

/* ---- the watchdog ----------------------------------------------------------- */

static char hang_msg[512];
static size_t hang_len;

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(2, hang_msg, hang_len);
    (void)w;
    _exit(124);
}

/* Name what runs now, for the watchdog's message, and re-arm it. */
static void watch(const char *coll, const char *algo, const char *what)
{
    snprintf(hang_msg, sizeof hang_msg, "HANG %s:%s %s (rank %d; no progress for %d s)\n", coll,
             algo, what, world_rank, opt.timeout);
    hang_len = strlen(hang_msg);
    alarm((unsigned)opt.timeout);
}

/* ---- one step's checks ----------------------------------------------------- */

typedef struct run {
    const sem_coll *c;
    const char *algo;     /* a registered name, or "auto" */
    sem_layout *L;
    MPI_Comm side;        /* for the 4 MiB message */
    char *big;
    const char *what;     /* the step, for messages */
    int ok;
} run;

static void fail_step(run *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (r->ok) { /* the first failure of the step, on this rank */
        printf("FAIL %s:%s %s (rank %d): ", r->c->name, r->algo, r->what, world_rank);
        vprintf(fmt, ap);
        printf("\n");
        fflush(stdout);
    }
    va_end(ap);
    r->ok = 0;
}

static int ok_rc(run *r, int rc, const char *call)
{
    if (rc != MPI_SUCCESS) fail_step(r, "%s returned %d: %s", call, rc, XCHG_Last_error());
    return rc == MPI_SUCCESS;
}

static void compare(run *r, const char *got, int dataset)
{
    const char *want = r->L->ref[dataset];
    if (memcmp(got, want, r->L->recv_bytes) == 0) return;
    size_t i = 0;
    while (got[i] == want[i]) i++;
    fail_step(r, "result differs from PMPI's, first at byte %zu of %zu", i, r->L->recv_bytes);
}

/* Whether `algo` of collective `coll` has a setup that blocks
 * (XCHG_Algorithm_setup_blocks). */
static int setup_blocks(const char *coll, const char *algo)
{
    int count = 0, blocks = 0;
    XCHG_Algorithm_count(coll, &count);
    for (int i = 0; i < count; i++) {
        const char *name = NULL;
        XCHG_Algorithm_get_info(coll, i, &name, NULL, NULL, NULL, NULL);
        if (name && strcmp(name, algo) == 0) XCHG_Algorithm_setup_blocks(coll, i, &blocks);
    }
    return blocks;
}

/* The algorithms whose setup creates windows, which MPI can only create
 * with blocking calls. Sub-communicators are no reason to block: inside a
 * task xchg makes them from nonblocking calls (src/core/vcomm.h), so the
 * node-aware family, ParLinNa and locality run themselves on a fresh
 * communicator too, and this test fails if any of them falls back. */
static int creates_windows(const char *algo)
{
    return strcmp(algo, "shm_direct") == 0 || strcmp(algo, "rma_direct") == 0;
}

/* The forced algorithm ran (nonblocking forms; "auto" chooses any). On a
 * fresh communicator an algorithm whose setup blocks runs the documented
 * stand-in (xchg.h: the MPI library's own; the neighbourhood's `standard`);
 * only those that create windows may block. */
static void check_used(run *r, MPI_Comm comm, int fresh)
{
    char used[256] = "";
    if (strcmp(r->algo, "auto") == 0) return;
    XCHG_Comm_get_algorithm(comm, r->c->name, 1, -1, used, sizeof used);
    const char *want = r->algo;
    int blocks = setup_blocks(r->c->name, r->algo);
    if (blocks && !creates_windows(r->algo))
        fail_step(r, "%s's setup is said to block (XCHG_Algorithm_setup_blocks), but it creates "
                     "no window", r->algo);
    if (fresh && blocks && creates_windows(r->algo))
        want = strcmp(r->c->name, "neighbor_alltoallv") == 0 ? "standard" : "mpi";
    size_t n = strlen(want);
    if (strncmp(used, want, n) != 0 || (used[n] != '\0' && used[n] != ':'))
        fail_step(r, "the call ran %s, not %s", used, want);
}

static void select_env(run *r)
{
    if (strcmp(r->algo, "auto") == 0) unsetenv(r->c->env);
    else setenv(r->c->env, r->algo, 1);
}

static MPI_Info select_info(run *r)
{
    MPI_Info info = MPI_INFO_NULL;
    if (strcmp(r->algo, "auto") == 0) return info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "xchg_algorithm", r->algo);
    return info;
}

/* A new communicator (no xchg call on it yet), errors returned. */
static int new_comm(run *r, MPI_Comm *comm)
{
    int rc = r->c->neighbor ? sem_ring_create(MPI_COMM_WORLD, comm)
                            : MPI_Comm_dup(MPI_COMM_WORLD, comm);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
    return rc;
}

/* A communicator on which a blocking call of the same shape, forced to the
 * algorithm (or, with `other`, to the MPI library's own collective: the
 * context is ready, the algorithm's plan not built), has run (and was
 * checked). */
static int warm_comm_with(run *r, MPI_Comm *comm, int other)
{
    if (!ok_rc(r, new_comm(r, comm), "creating the communicator")) return 0;
    char *recv = malloc(r->L->recv_bytes);
    memset(recv, SEM_SENTINEL, r->L->recv_bytes);
    if (other) setenv(r->c->env, "mpi", 1);
    else select_env(r);
    if (ok_rc(r, r->c->call(r->L, FORM_BLOCKING, r->L->data[4], recv, *comm, MPI_INFO_NULL,
                            NULL), "the blocking call"))
        compare(r, recv, 4);
    free(recv);
    return r->ok;
}

static int warm_comm(run *r, MPI_Comm *comm) { return warm_comm_with(r, comm, 0); }

/* ---- the cases -------------------------------------------------------------- */

/* The scenario of issue 25 in one form (nonblocking or persistent, on a
 * fresh or a warm communicator). `fresh`: 1 a new communicator; 0 one warmed
 * by the same call; 2 one warmed by the MPI library's own collective, so the
 * start finds the context ready and builds the algorithm's plan at once
 * (sub-communicators included: a setup that blocks on another rank
 * deadlocks here, where on a fresh communicator it would wait until
 * XCHG_Wait behind the context's MPI_Comm_idup). */
static void scenario(run *r, sem_form form, int fresh)
{
    const sem_layout *L = r->L;
    MPI_Comm comm;
    XCHG_Request req = XCHG_REQUEST_NULL;
    int dataset = fresh == 1 ? 1 : fresh == 2 ? 3 : 2;
    if (fresh == 1 ? !ok_rc(r, new_comm(r, &comm), "creating the communicator")
                   : !warm_comm_with(r, &comm, fresh == 2))
        return;
    char *send = malloc(L->send_bytes), *recv = malloc(L->recv_bytes);
    memcpy(send, L->data[dataset], L->send_bytes);
    memset(recv, SEM_SENTINEL, L->recv_bytes);
    if (form == FORM_INIT) {
        MPI_Info info = select_info(r);
        int rc = r->c->call(L, FORM_INIT, send, recv, comm, info, &req);
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        if (!ok_rc(r, rc, "init")) goto out;
    } else {
        select_env(r);
    }
    if (world_rank == 1) {
        memset(r->big, 0x5A, (size_t)opt.big);
        MPI_Send(r->big, (int)opt.big, MPI_BYTE, 0, 25, r->side);
    }
    int rc = form == FORM_INIT ? XCHG_Start(&req) : r->c->call(L, form, send, recv, comm,
                                                               MPI_INFO_NULL, &req);
    ok_rc(r, rc, "the start");
    if (world_rank == 0) { /* even after a failed start: rank 1 waits in MPI_Send */
        memset(r->big, 0, (size_t)opt.big);
        MPI_Recv(r->big, (int)opt.big, MPI_BYTE, 1, 25, r->side, MPI_STATUS_IGNORE);
        if (r->big[0] != 0x5A || r->big[opt.big - 1] != 0x5A)
            fail_step(r, "the side message arrived wrong");
    }
    if (!r->ok || !ok_rc(r, XCHG_Wait(&req, MPI_STATUS_IGNORE), "XCHG_Wait")) goto out;
    compare(r, recv, dataset);
    if (form == FORM_NONBLOCKING) check_used(r, comm, fresh);
    if (form == FORM_NONBLOCKING && fresh && r->ok) {
        /* The plan the task built (its sub-communicators virtual groups,
         * src/core/vcomm.h) now serves a blocking call. */
        memset(recv, SEM_SENTINEL, L->recv_bytes);
        if (ok_rc(r, r->c->call(L, FORM_BLOCKING, L->data[4], recv, comm, MPI_INFO_NULL, NULL),
                  "a blocking call after it"))
            compare(r, recv, 4);
    }
out:
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    free(send);
    free(recv);
    MPI_Comm_free(&comm);
}

/* Three calls outstanding on one warm communicator. */
static void reverse(run *r, int variant)
{
    const sem_layout *L = r->L;
    MPI_Comm comm;
    XCHG_Request req[3] = {XCHG_REQUEST_NULL, XCHG_REQUEST_NULL, XCHG_REQUEST_NULL};
    char *recv[3];
    if (!warm_comm(r, &comm)) return;
    for (int k = 0; k < 3; k++) {
        recv[k] = malloc(L->recv_bytes);
        memset(recv[k], SEM_SENTINEL, L->recv_bytes);
    }
    /* The datasets are read-only: each call sends its own. */
    if (variant == 2) {
        MPI_Info info = select_info(r);
        for (int k = 0; k < 3 && r->ok; k++)
            ok_rc(r, r->c->call(L, FORM_INIT, L->data[k], recv[k], comm, info, &req[k]), "init");
        if (info != MPI_INFO_NULL) MPI_Info_free(&info);
        for (int k = 0; k < 3 && r->ok; k++) ok_rc(r, XCHG_Start(&req[k]), "XCHG_Start");
    } else {
        for (int k = 0; k < 3 && r->ok; k++)
            ok_rc(r, r->c->call(L, FORM_NONBLOCKING, L->data[k], recv[k], comm, MPI_INFO_NULL,
                                &req[k]), "the start");
    }
    if (r->ok && variant != 1) {
        for (int k = 2; k >= 0 && r->ok; k--)
            ok_rc(r, XCHG_Wait(&req[k], MPI_STATUS_IGNORE), "XCHG_Wait");
    } else if (r->ok) {
        /* Polling order: rotated by the rank, backwards on odd ranks. */
        int order[3], left = 3;
        for (int k = 0; k < 3; k++)
            order[k] = world_rank % 2 ? (world_rank + 3 - k) % 3 : (world_rank + k) % 3;
        while (left > 0 && r->ok) {
            for (int j = 0; j < 3 && r->ok; j++) {
                int k = order[j], flag = 0;
                if (req[k] == XCHG_REQUEST_NULL) continue;
                if (ok_rc(r, XCHG_Test(&req[k], &flag, MPI_STATUS_IGNORE), "XCHG_Test") && flag) {
                    if (req[k] != XCHG_REQUEST_NULL)
                        fail_step(r, "a completed nonblocking request was not freed");
                    left--;
                }
            }
        }
    }
    for (int k = 0; k < 3 && r->ok; k++) compare(r, recv[k], k);
    for (int k = 0; k < 3; k++) {
        if (req[k] != XCHG_REQUEST_NULL) XCHG_Request_free(&req[k]);
        free(recv[k]);
    }
    MPI_Comm_free(&comm);
}

/* One persistent request, `starts` starts, data changed between them. */
static void persistent(run *r, int starts)
{
    const sem_layout *L = r->L;
    MPI_Comm comm;
    XCHG_Request req = XCHG_REQUEST_NULL;
    if (!warm_comm(r, &comm)) return;
    char *send = malloc(L->send_bytes), *recv = malloc(L->recv_bytes);
    memcpy(send, L->data[0], L->send_bytes);
    MPI_Info info = select_info(r);
    int rc = r->c->call(L, FORM_INIT, send, recv, comm, info, &req);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    for (int i = 0; ok_rc(r, rc, "init") && i < starts; i++) {
        int d = i % SEM_NDATA;
        alarm((unsigned)opt.timeout); /* progress: each start re-arms */
        memcpy(send, L->data[d], L->send_bytes);
        memset(recv, SEM_SENTINEL, L->recv_bytes);
        if (!ok_rc(r, XCHG_Start(&req), "XCHG_Start")) break;
        if (!ok_rc(r, XCHG_Wait(&req, MPI_STATUS_IGNORE), "XCHG_Wait")) break;
        compare(r, recv, d);
        if (!r->ok) {
            printf("     (at start %d of %d)\n", i + 1, starts);
            break;
        }
    }
    if (req != XCHG_REQUEST_NULL) XCHG_Request_free(&req);
    free(send);
    free(recv);
    MPI_Comm_free(&comm);
}

/* ---- driving ---------------------------------------------------------------- */

/* "scenario" (n characters of `spec`) names its five steps, and
 * "scenario/persistent-warm" one of them. */
static int names_step(const char *spec, size_t n, const char *step)
{
    return n > 0 && strncmp(step, spec, n) == 0 && (step[n] == '\0' || step[n] == '/');
}

/* One entry of --skip (n characters): STEP, or COLL:ALGO (all its steps), or
 * COLL:ALGO:STEP. */
static int skip_entry(const char *e, size_t n, const run *r, const char *step)
{
    size_t coll = strcspn(e, ":");
    if (coll >= n) return names_step(e, n, step);
    size_t algo = strcspn(e + coll + 1, ":");
    if (coll + 1 + algo > n) algo = n - coll - 1;
    if (strlen(r->c->name) != coll || strncmp(e, r->c->name, coll) != 0 ||
        strlen(r->algo) != algo || strncmp(e + coll + 1, r->algo, algo) != 0)
        return 0;
    size_t rest = coll + 1 + algo;
    return rest >= n || names_step(e + rest + 1, n - rest - 1, step);
}

/* --case=scenario runs its five steps, --case=scenario/persistent-warm one;
 * --skip=scenario,alltoall:rma_direct:reverse/test-polling runs the others. */
static int wanted_step(const run *r, const char *step)
{
    for (const char *at = opt.skip; at && *at;) { /* a comma-separated list */
        size_t n = strcspn(at, ",");
        if (skip_entry(at, n, r, step)) return 0;
        at += n + (at[n] == ',');
    }
    return !opt.only_case || names_step(opt.only_case, strlen(opt.only_case), step);
}

/* One step: armed, run, the verdict agreed by all ranks. */
static void step(run *r, const char *what, int which, int arg)
{
    r->what = what;
    r->ok = 1;
    watch(r->c->name, r->algo, what);
    PMPI_Barrier(MPI_COMM_WORLD);
    double started = MPI_Wtime();
    switch (which) {
    case 0: scenario(r, (sem_form)(arg / 3), arg % 3); break;
    case 1: reverse(r, arg); break;
    default: persistent(r, arg); break;
    }
    unsetenv(r->c->env);
    int all_ok = 0;
    PMPI_Allreduce(&r->ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    alarm(0);
    double seconds = MPI_Wtime() - started;
    if (all_ok) passed++;
    else failed++;
    if (world_rank == 0) {
        printf("%s %s:%s %s (%.2f s)\n", all_ok ? "PASS" : "FAIL", r->c->name, r->algo, what,
               seconds);
        fflush(stdout);
    }
}

static void run_algorithm(run *r)
{
    static const struct { const char *what; int which, arg; } steps[] = {
        {"scenario/nonblocking-fresh", 0, FORM_NONBLOCKING * 3 + 1},
        {"scenario/nonblocking-warm", 0, FORM_NONBLOCKING * 3},
        {"scenario/nonblocking-newplan", 0, FORM_NONBLOCKING * 3 + 2},
        {"scenario/persistent-fresh", 0, FORM_INIT * 3 + 1},
        {"scenario/persistent-warm", 0, FORM_INIT * 3},
        {"reverse/wait", 1, 0},
        {"reverse/test-polling", 1, 1},
        {"reverse/persistent", 1, 2},
        {"persistent", 2, -1},
    };
    for (size_t s = 0; s < sizeof steps / sizeof steps[0]; s++) {
        if (!wanted_step(r, steps[s].what)) continue;
        step(r, steps[s].what, steps[s].which, steps[s].which == 2 ? opt.starts : steps[s].arg);
    }
}

/* The algorithms that serve `coll` (alltoallw: alltoallv's when the registry
 * does not list it), then "auto". */
static int algorithm_names(const char *coll, const char **names, int max)
{
    int count = 0, n = 0;
    const char *serving = coll;
    if (XCHG_Algorithm_count(coll, &count) != MPI_SUCCESS || count == 0) {
        serving = "alltoallv";
        XCHG_Algorithm_count(serving, &count);
    }
    for (int i = 0; i < count && n < max - 1; i++)
        XCHG_Algorithm_get_info(serving, i, &names[n++], NULL, NULL, NULL, NULL);
    names[n++] = "auto";
    return n;
}

static int wanted_algo(const char *algo)
{
    return !opt.only_algo || strcmp(opt.only_algo, algo) == 0;
}

static void run_collective(const sem_coll *c, MPI_Comm probe, char *big, MPI_Comm side)
{
    const char *names[64];
    int n = algorithm_names(c->name, names, 64);
    sem_layout L;
    memset(&L, 0, sizeof L);
    L.pair = MPI_DATATYPE_NULL;
    L.P = world_size, L.rank = world_rank;
    c->layout(&L, world_size, world_rank, opt.scale);
    MPI_Comm refcomm;
    if (c->neighbor) sem_ring_create(MPI_COMM_WORLD, &refcomm);
    else MPI_Comm_dup(MPI_COMM_WORLD, &refcomm);
    if (sem_layout_prepare(c, &L, refcomm) != MPI_SUCCESS) {
        if (world_rank == 0) printf("FAIL %s: the PMPI reference failed\n", c->name);
        failed++;
    }
    MPI_Comm_free(&refcomm);
    for (int i = 0; i < n; i++) {
        if (!wanted_algo(names[i])) continue;
        if (opt.list) {
            if (world_rank == 0) printf("%s:%s\n", c->name, names[i]);
            continue;
        }
        int applicable = 1;
        char why[512] = "";
        if (strcmp(names[i], "auto") != 0 && !c->neighbor)
            XCHG_Comm_check_algorithm(probe, c->name, names[i], &applicable, why, sizeof why);
        if (!applicable) {
            if (world_rank == 0) printf("SKIP %s:%s (%s)\n", c->name, names[i], why);
            skipped++;
            continue;
        }
        run r = {.c = c, .algo = names[i], .L = &L, .side = side, .big = big};
        run_algorithm(&r);
    }
    sem_layout_free(&L);
}

static void usage(void)
{
    if (world_rank == 0)
        fprintf(stderr, "usage: mpirun -n P xchg-semantics [--only=COLL[:ALGO]] "
                        "[--case=scenario|reverse|persistent|STEP] [--timeout=SECONDS] "
                        "[--skip=STEP|COLL:ALGO[:STEP],...] [--starts=N] [--scale=K] [--big=BYTES] [--list]\n");
}

static int parse(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--only=", 7) == 0) {
            char *spec = strdup(a + 7), *colon = strchr(spec, ':');
            if (colon) *colon = '\0', opt.only_algo = colon + 1;
            opt.only_coll = spec;
        } else if (strncmp(a, "--case=", 7) == 0) {
            opt.only_case = a + 7;
            if (strncmp(opt.only_case, "scenario", 8) && strncmp(opt.only_case, "reverse", 7) &&
                strcmp(opt.only_case, "persistent"))
                return 0;
        } else if (strncmp(a, "--timeout=", 10) == 0) {
            opt.timeout = atoi(a + 10);
        } else if (strncmp(a, "--starts=", 9) == 0) {
            opt.starts = atoi(a + 9);
        } else if (strncmp(a, "--scale=", 8) == 0) {
            opt.scale = atoi(a + 8);
        } else if (strncmp(a, "--big=", 6) == 0) {
            opt.big = atol(a + 6);
        } else if (strncmp(a, "--skip=", 7) == 0) {
            opt.skip = a + 7;
        } else if (strcmp(a, "--list") == 0) {
            opt.list = 1;
        } else {
            return 0;
        }
    }
    return opt.timeout > 0 && opt.starts >= 0 && opt.scale > 0 && opt.big > 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (!parse(argc, argv)) {
        usage();
        MPI_Finalize();
        return 2;
    }
    signal(SIGALRM, on_alarm);
    /* Unset what a shell may hold: each case sets its own. */
    for (int k = 0; k < sem_num_colls; k++) unsetenv(sem_colls[k].env);
    int known = !opt.only_coll;
    for (int k = 0; k < sem_num_colls; k++)
        known |= opt.only_coll && strcmp(opt.only_coll, sem_colls[k].name) == 0;
    if (!known || (world_size < 2 && !opt.list)) {
        if (world_rank == 0)
            fprintf(stderr, "xchg-semantics: %s\n",
                    !known ? "--only names no collective" : "needs at least 2 ranks");
        MPI_Finalize();
        return 2;
    }
    MPI_Comm probe, side;
    MPI_Comm_dup(MPI_COMM_WORLD, &probe);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    char *big = malloc((size_t)opt.big);
    for (int k = 0; k < sem_num_colls; k++)
        if (!opt.only_coll || strcmp(opt.only_coll, sem_colls[k].name) == 0)
            run_collective(&sem_colls[k], probe, big, side);
    free(big);
    MPI_Comm_free(&side);
    MPI_Comm_free(&probe);
    if (world_rank == 0 && !opt.list)
        printf("skipped (not applicable): %d\n%d passed, %d failed\n", skipped, passed,
               failed);
    MPI_Finalize();
    return failed ? 1 : 0;
}
