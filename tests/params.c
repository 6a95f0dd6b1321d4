/*
 * Parameter points from the registry descriptors:
 *   INT with max P:         {min, min+1, min+2, 4, ceil(sqrt P), P-1, P} in range
 *   INT with another max:   {min, 2, default, P-1 (if >= min), P+3} in range
 *                           (plus the parameter's special names, if it has any)
 *   ENUM:                   every value
 *   ALGO (inner=):          every flat algorithm of that collective
 * and their cartesian product, sampled deterministically down to a cap.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_VALUES 64

typedef struct value_list {
    char text[MAX_VALUES][XCHG_MAX_NAME];
    int count;
    int def;                 /* index of the default value */
} value_list;

static void add_value(value_list *v, const char *text)
{
    for (int i = 0; i < v->count; i++)
        if (strcmp(v->text[i], text) == 0) return;
    if (v->count < MAX_VALUES) snprintf(v->text[v->count++], XCHG_MAX_NAME, "%s", text);
}

static int find_value(const value_list *v, const char *text)
{
    for (int i = 0; i < v->count; i++)
        if (strcmp(v->text[i], text) == 0) return i;
    return 0;
}

static void add_int(value_list *v, int64_t x, int64_t lo, int64_t hi)
{
    char buf[32];
    if (x < lo || x > hi) return;
    snprintf(buf, sizeof buf, "%lld", (long long)x);
    add_value(v, buf);
}

static void param_values(const xchg_param_desc *p, int size, value_list *v)
{
    char buf[32];
    v->count = 0;
    if (p->kind == XCHG_PARAM_INT) {
        int64_t lo = p->min, hi = xchg_range_bound(p->max, size);
        if (p->max == XCHG_RANGE_P) {
            int64_t cand[] = {lo, lo + 1, lo + 2, 4, (int64_t)ceil(sqrt((double)size)), size - 1,
                              size};
            for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) add_int(v, cand[i], lo, hi);
        } else {
            int64_t cand[] = {lo, 2, p->def, size - 1, size + 3};
            for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) add_int(v, cand[i], lo, hi);
        }
        /* Special names of an INT parameter (e.g. groups=numa), where the
         * registry gives them: each is swept too. */
        for (int i = 0; p->names && p->names[i]; i++) add_value(v, p->names[i]);
        snprintf(buf, sizeof buf, "%lld", (long long)p->def);
        v->def = find_value(v, buf);
    } else if (p->kind == XCHG_PARAM_ENUM) {
        for (int i = 0; p->names[i]; i++) add_value(v, p->names[i]);
        v->def = (int)p->def;
    } else {
        int n = xchg_registry_count(p->algo_coll);
        for (int i = 0; i < n; i++) {
            const xchg_algorithm *a = xchg_registry_get(p->algo_coll, i);
            if (a->is_flat) add_value(v, a->name);
        }
        v->def = p->def_name ? find_value(v, p->def_name) : 0;
    }
}

static void format_point(const xchg_algorithm *algo, const value_list *vals, long long index,
                         char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s", algo->name);
    /* Mixed radix, first parameter least significant. */
    long long rest = index;
    int digit[XCHG_MAX_PARAMS];
    for (int i = 0; i < algo->num_params; i++) {
        digit[i] = (int)(rest % vals[i].count);
        rest /= vals[i].count;
    }
    for (int i = 0; i < algo->num_params && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", i ? "," : ":",
                                 algo->params[i].name, vals[i].text[digit[i]]);
}

int points_generate(const xchg_algorithm *algo, int size, int cap, uint64_t salt, point_list *out)
{
    value_list vals[XCHG_MAX_PARAMS];
    long long total = 1, def_index = 0, radix = 1;
    for (int i = 0; i < algo->num_params; i++) {
        param_values(&algo->params[i], size, &vals[i]);
        if (vals[i].count == 0) { /* empty range at this P: use the default as is */
            char buf[32];
            snprintf(buf, sizeof buf, "%lld", (long long)algo->params[i].def);
            add_value(&vals[i], buf);
            vals[i].def = 0;
        }
        total *= vals[i].count;
        def_index += vals[i].def * radix;
        radix *= vals[i].count;
    }
    int keep = total <= cap ? (int)total : cap;
    out->text = calloc((size_t)keep, sizeof *out->text);
    out->count = keep;
    out->total = (int)total;
    if (keep == total) {
        for (long long i = 0; i < total; i++)
            format_point(algo, vals, i, out->text[i], sizeof out->text[i]);
        return MPI_SUCCESS;
    }
    /* The default point, then distinct points chosen by a seeded hash. */
    char *taken = calloc((size_t)total, 1);
    format_point(algo, vals, def_index, out->text[0], sizeof out->text[0]);
    taken[def_index] = 1;
    for (int k = 1, tries = 0; k < keep; tries++) {
        long long i = (long long)(h_hash(salt, (uint64_t)tries, 5, 5) % (uint64_t)total);
        if (taken[i]) continue;
        taken[i] = 1;
        format_point(algo, vals, i, out->text[k], sizeof out->text[k]);
        k++;
    }
    free(taken);
    return MPI_SUCCESS;
}

void points_free(point_list *pl)
{
    free(pl->text);
    pl->text = NULL;
    pl->count = pl->total = 0;
}
