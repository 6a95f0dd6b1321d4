/*
 * Learned choices persisted (XCHG_TUNING_OUT): when a context goes away
 * (its communicator freed, or MPI_Finalize), rank 0 of MPI_COMM_WORLD keeps
 * the decided signatures of the contexts it belongs to (and those that were
 * re-checking a winner: that winner); at MPI_Finalize it
 * writes them as rules of a tuning file (docs/tuning.md), merged with the
 * file already at that path, so that a run with XCHG_TUNING_FILE set to it
 * starts decided (a tuning rule comes before online selection).
 *
 * One rule per decided signature: comm_size P, nodes, ppn (the smallest to
 * the largest node), bytes (the signature's quarter-octave bucket as a
 * range), alltoallv, alltoallw and allgatherv also max_block_bytes; the algorithm with all its
 * parameters; a comment with the measured medians. And one per winner a
 * dense collective's persistent init measured (online_init.c) whose inputs
 * no blocking signature decided, of the form "persistent": it decides
 * persistent inits only (a start's run is not a blocking call's: `mpi`
 * starts the library's persistent collective). Merging: the new rules go
 * first (the first match wins) and an old rule with exactly the same keys is
 * dropped; every other key of the old file stays. Sparse alltoallv(w)
 * signatures (fewer non-empty peers than P-1) are not written: a rule cannot
 * say so, and would then decide dense calls too.
 * Decisions are the same on every rank, so one rank writes. Errors (an old
 * file that is not JSON, a directory that cannot be written) are printed to
 * stderr: MPI_Finalize has no caller to raise them to.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "online.h"
#include "online_state.h"
#include "select.h"

typedef struct learned {
    xchg_select_input in;
    int persistent_only; /* a persistent init's winner: "form": "persistent" */
    char algorithm[256];
    char comment[512];
} learned;

static pthread_mutex_t learned_lock = PTHREAD_MUTEX_INITIALIZER;
static learned *kept;
static int num_kept, cap_kept;

/* The rule's comment: the medians that decided it; a signature re-checking
 * when the program ended (its medians half retaken) says so instead. */
static void comment_of(const xchg_online_signature *s, char *comment, size_t size)
{
    if (s->state != SIG_DECIDED) {
        snprintf(comment, size, "online selection, re-checking when the program ended: "
                                "the winner before");
        return;
    }
    int len = snprintf(comment, size, "online selection, median of up to %d (slowest rank):",
                       s->samples_wanted);
    for (int c = 0; c < s->ncand && len < (int)size - 1; c++) {
        char name[256];
        xchg_choice_format(&s->cand[c], name, sizeof name);
        len += snprintf(comment + len, size - (size_t)len, "%s %s %.2f us", c ? "," : "", name,
                        s->medians[c] * 1e6);
    }
}

/* Keep l for the file (at MPI_Finalize). */
static void keep_learned(const learned *l)
{
    if (xchg_coll_is_v(l->in.coll) && l->in.max_peers < l->in.comm_size - 1) return; /* sparse */
    pthread_mutex_lock(&learned_lock);
    if (num_kept == cap_kept) {
        int cap = cap_kept ? 2 * cap_kept : 16;
        learned *more = realloc(kept, (size_t)cap * sizeof *more);
        if (more) {
            kept = more;
            cap_kept = cap;
        }
    }
    if (num_kept < cap_kept) kept[num_kept++] = *l;
    pthread_mutex_unlock(&learned_lock);
}

/* A signature with a winner (decided, or re-checking one it had). */
static void keep(const xchg_online_signature *s)
{
    learned l = {.in = s->in};
    xchg_choice_format(&s->cand[s->winner], l.algorithm, sizeof l.algorithm);
    comment_of(s, l.comment, sizeof l.comment);
    keep_learned(&l);
}

/* The winner a persistent init measured for inputs `in` (bucketed), unless
 * a blocking signature of the same inputs was decided (its rule serves
 * inits too). Not the neighbourhood collective's: a rule matches its mean
 * block only, not its pattern. */
static void keep_init(const xchg_online *o, const xchg_select_input *in, const xchg_choice *winner)
{
    int i = xchg_online_find(o, in);
    if (in->coll == XCHG_NEIGHBOR_ALLTOALLV || (i >= 0 && o->sig[i].explorations > 0)) return;
    learned l = {.in = *in, .persistent_only = 1};
    xchg_choice_format(winner, l.algorithm, sizeof l.algorithm);
    snprintf(l.comment, sizeof l.comment, "online selection at a persistent init: candidates "
             "timed on scratch buffers, as a start runs them (slowest rank)");
    keep_learned(&l);
}

void xchg_online_release(xchg_context *ctx)
{
    xchg_online *o = ctx->online;
    ctx->online = NULL;
    if (!o) return;
    const char *out = getenv("XCHG_TUNING_OUT");
    int world_rank = -1;
    if (out && *out && !ctx->is_inner && MPI_Comm_rank(MPI_COMM_WORLD, &world_rank) == MPI_SUCCESS &&
        world_rank == 0) {
        for (int i = 0; i < o->count; i++)
            if (o->sig[i].explorations > 0) keep(&o->sig[i]);
        for (int i = 0; i < o->init_count; i++) keep_init(o, &o->init_in[i], &o->init_winner[i]);
    }
    for (int c = 0; c < XCHG_NUM_COLL; c++) free(o->fast[c].kept);
    for (int i = 0; i < o->count; i++) free(o->sig[i].samples);
    free(o);
}

#ifndef XCHG_HAVE_JANSSON

void xchg_online_write_out(void)
{
    const char *path = getenv("XCHG_TUNING_OUT");
    if (path && *path && num_kept > 0)
        fprintf(stderr, "xchg: XCHG_TUNING_OUT=%s not written: xchg was built without Jansson "
                        "(libjansson-dev)\n", path);
    free(kept);
    kept = NULL;
    num_kept = cap_kept = 0;
}

#else

#include <jansson.h>

/* The smallest size above `b` in another quarter-octave bucket. */
static int64_t next_bucket(int64_t b)
{
    if (b <= 0) return 1;
    int64_t lo = b + 1, hi = 2 * b + 1; /* bucket(2b + 1) > b */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (xchg_select_size_bucket(mid) > b) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static json_t *range(int64_t lo, int64_t hi)
{
    return lo == hi ? json_integer(lo) : json_pack("[II]", (json_int_t)lo, (json_int_t)hi);
}

static json_t *rule_of(const learned *l)
{
    const xchg_select_input *in = &l->in;
    json_t *r = json_object();
    json_object_set_new(r, "comm_size", json_integer(in->comm_size));
    json_object_set_new(r, "nodes", json_integer(in->num_nodes));
    json_object_set_new(r, "ppn", range(in->min_node_size, in->max_node_size));
    json_object_set_new(r, "bytes", range(in->bytes, next_bucket(in->bytes) - 1));
    if (xchg_coll_is_v(in->coll) || in->coll == XCHG_ALLGATHERV)
        json_object_set_new(r, "max_block_bytes",
                            range(in->max_block_bytes, next_bucket(in->max_block_bytes) - 1));
    if (l->persistent_only) json_object_set_new(r, "form", json_string("persistent"));
    json_object_set_new(r, "algorithm", json_string(l->algorithm));
    json_object_set_new(r, "comment", json_string(l->comment));
    return r;
}

static int same_keys(json_t *a, json_t *b)
{
    static const char *const keys[] = {"comm_size", "nodes", "ppn", "bytes", "max_block_bytes",
                                       "form"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *x = json_object_get(a, keys[k]), *y = json_object_get(b, keys[k]);
        if ((x == NULL) != (y == NULL) || (x && !json_equal(x, y))) return 0;
    }
    return 1;
}

static void merge_rule(json_t *rules, const learned *l)
{
    const char *coll = xchg_coll_name(l->in.coll);
    json_t *list = json_object_get(rules, coll);
    if (!json_is_array(list)) {
        list = json_array();
        json_object_set_new(rules, coll, list);
    }
    json_t *rule = rule_of(l);
    for (size_t i = json_array_size(list); i-- > 0;)
        if (same_keys(json_array_get(list, i), rule)) json_array_remove(list, i);
    json_array_insert_new(list, 0, rule);
}

static void write_file(const char *path)
{
    json_error_t err;
    json_t *root = NULL;
    FILE *old = fopen(path, "r");
    if (old) {
        fclose(old);
        root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
        if (!json_is_object(root)) {
            fprintf(stderr, "xchg: XCHG_TUNING_OUT=%s not written: the file there is not a "
                            "tuning file (%s:%d: %s)\n", path, path, err.line, err.text);
            json_decref(root);
            return;
        }
    } else {
        root = json_object();
    }
    json_object_set_new(root, "xchg_tuning", json_integer(1));
    if (!json_object_get(root, "generated_by"))
        json_object_set_new(root, "generated_by", json_string("xchg online selection (XCHG_TUNING_OUT)"));
    json_t *rules = json_object_get(root, "rules");
    if (!json_is_object(rules)) {
        rules = json_object();
        json_object_set_new(root, "rules", rules);
    }
    for (int i = num_kept; i-- > 0;) merge_rule(rules, &kept[i]); /* kept[0] ends first */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (json_dump_file(root, tmp, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
        rename(tmp, path) != 0) {
        fprintf(stderr, "xchg: XCHG_TUNING_OUT=%s: cannot write it\n", path);
        remove(tmp);
    }
    json_decref(root);
}

void xchg_online_write_out(void)
{
    const char *path = getenv("XCHG_TUNING_OUT");
    pthread_mutex_lock(&learned_lock);
    if (path && *path && num_kept > 0) write_file(path);
    free(kept);
    kept = NULL;
    num_kept = cap_kept = 0;
    pthread_mutex_unlock(&learned_lock);
}

#endif
