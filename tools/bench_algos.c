/*
 * --algo expansion for xchg-bench, from the registry (so algorithms added
 * later appear without changes here):
 *   --algo all                    `auto` (what xchg chooses by itself), then
 *                                 every algorithm of the collective, defaults
 *   --algo auto                   automatic selection (src/select/)
 *   --algo scattered:batch=8      one selection string, as BENCH_ALLTOALLV takes
 *   --algo NAME:p=all             every valid value of p at this P (integer
 *                                 range, min..P when unbounded, plus special
 *                                 names such as numa; enum names; or flat
 *                                 inner algorithms)
 *   --algo NAME:p=2..8            an integer range (the upper end may be P)
 *   --algo NAME:p=2,4,8           a list (also for enum and algorithm values)
 * One parameter per --algo may sweep; the others are fixed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "xchg.h"

#define MAX_VALUES 4096

static int quiet; /* only rank 0 prints errors */
#define complain(...) (quiet ? 0 : fprintf(stderr, __VA_ARGS__))

/* Append the canonical form of `text` (every parameter written out). */
static int add(bench_algo_list *list, const char *coll, const char *text)
{
    char canonical[256];
    if (strcmp(text, "auto") != 0) {
        if (XCHG_Selection_normalize(coll, text, canonical, sizeof canonical) != MPI_SUCCESS)
            return MPI_ERR_ARG;
        text = canonical;
    }
    char (*grown)[256] = realloc(list->selection, (size_t)(list->count + 1) * sizeof *grown);
    if (!grown) return MPI_ERR_NO_MEM;
    list->selection = grown;
    snprintf(list->selection[list->count++], 256, "%s", text);
    return MPI_SUCCESS;
}

static int parse_bound(const char *text, int nranks, int64_t *value)
{
    char *end;
    if (strcmp(text, "P") == 0) {
        *value = nranks;
        return 1;
    }
    *value = strtoll(text, &end, 10);
    return end != text && *end == '\0';
}

/* Parameter `param` of algorithm `algo` of `coll`, as the introspection
 * calls of xchg.h give it. */
typedef struct {
    const char *coll, *name;
    int algo, param, kind, num_names;
    long long min, max;
} sweep_param;

static const char *param_name_at(const sweep_param *p, int i)
{
    const char *name = "";
    XCHG_Param_get_name(p->coll, p->algo, p->param, i, &name);
    return name;
}

/* The values of a sweeping parameter, as strings; returns how many (-1: error). */
static int sweep_values(const sweep_param *p, const char *spec, int nranks,
                        char (*values)[64], int max_values)
{
    int n = 0;
    const char *dots = strstr(spec, "..");
    if (strcmp(spec, "all") == 0) {
        if (p->kind == XCHG_PARAM_KIND_INTEGER) {
            /* An unbounded parameter (a count of peers or requests) sweeps min..P. */
            long long lo = p->min == XCHG_BOUND_P ? nranks : p->min;
            long long hi = p->max == XCHG_BOUND_P ? nranks : p->max;
            if (hi == XCHG_BOUND_UNLIMITED) hi = lo > nranks ? lo : nranks;
            if (hi - lo >= max_values) {
                complain( "xchg-bench: %s=all: the range is too large; give a..b or a list\n",
                        p->name);
                return -1;
            }
            for (long long v = lo; v <= hi; v++) snprintf(values[n++], 64, "%lld", v);
        }
        /* The names: an enumeration's values, the flat inner algorithms, or an
         * integer's special values (e.g. groups=numa). */
        for (int i = 0; i < p->num_names && n < max_values; i++)
            snprintf(values[n++], 64, "%s", param_name_at(p, i));
        return n;
    }
    if (dots && p->kind == XCHG_PARAM_KIND_INTEGER) {
        char lo_text[64];
        int64_t lo, hi;
        snprintf(lo_text, sizeof lo_text, "%.*s", (int)(dots - spec), spec);
        if (!parse_bound(lo_text, nranks, &lo) || !parse_bound(dots + 2, nranks, &hi) ||
            hi < lo || hi - lo >= max_values) {
            complain( "xchg-bench: %s=%s is not a usable range a..b\n", p->name, spec);
            return -1;
        }
        for (int64_t v = lo; v <= hi; v++) snprintf(values[n++], 64, "%" PRId64, v);
        return n;
    }
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *item = strtok(copy, ","); item && n < max_values; item = strtok(NULL, ","))
        snprintf(values[n++], 64, "%s", item);
    return n;
}

/* The index of algorithm `name` of `coll`, or -1. */
static int find_algorithm(const char *coll, const char *name)
{
    int count = 0;
    XCHG_Algorithm_count(coll, &count);
    for (int i = 0; i < count; i++) {
        const char *each;
        if (XCHG_Algorithm_get_info(coll, i, &each, NULL, NULL, NULL, NULL) == MPI_SUCCESS &&
            strcmp(each, name) == 0)
            return i;
    }
    return -1;
}

/* Whether `text` is a valid selection (else complain, naming `spec`). */
static int valid(const char *coll, const char *spec, const char *text)
{
    char canonical[256];
    if (XCHG_Selection_normalize(coll, text, canonical, sizeof canonical) == MPI_SUCCESS)
        return 1;
    complain( "xchg-bench: --algo %s: %s\n", spec, XCHG_Last_error());
    return 0;
}

/* Expand one --algo argument into list. */
static int expand_one(const bench_options *opt, const char *spec, int nranks,
                      bench_algo_list *list)
{
    const char *coll = opt->coll_name;
    if (strcmp(spec, "auto") == 0) return add(list, coll, spec) != MPI_SUCCESS;
    if (strcmp(spec, "all") == 0) {
        int count = 0;
        if (add(list, coll, "auto") != MPI_SUCCESS) return 1;
        XCHG_Algorithm_count(coll, &count);
        for (int i = 0; i < count; i++) {
            const char *name;
            XCHG_Algorithm_get_info(coll, i, &name, NULL, NULL, NULL, NULL);
            if (add(list, coll, name) != MPI_SUCCESS) return 1;
        }
        return 0;
    }
    char name[256], params[1024];
    const char *colon = strchr(spec, ':');
    snprintf(name, sizeof name, "%.*s", colon ? (int)(colon - spec) : (int)strlen(spec), spec);
    snprintf(params, sizeof params, "%s", colon ? colon + 1 : "");
    int algo = find_algorithm(coll, name);
    if (algo < 0) return !valid(coll, spec, spec); /* says why */
    /* Split "p=v,q=a,b,c" into parameters; a token without '=' continues the
     * list of the parameter before it. */
    char fixed[1024] = "", sweep_name[64] = "", sweep_spec[1024] = "";
    char pname[64] = "", pvalue[1024] = "";
    int have = 0;
    char *save = NULL;
    for (char *tok = strtok_r(params, ",", &save);; tok = strtok_r(NULL, ",", &save)) {
        if (tok && !strchr(tok, '=') && have) {
            size_t used = strlen(pvalue);
            snprintf(pvalue + used, sizeof pvalue - used, ",%s", tok);
            continue;
        }
        if (have) { /* finish the previous parameter */
            int sweeps = strcmp(pvalue, "all") == 0 || strchr(pvalue, ',') || strstr(pvalue, "..");
            if (sweeps && sweep_name[0]) {
                complain( "xchg-bench: --algo %s: only one parameter may sweep\n", spec);
                return 1;
            }
            if (sweeps) {
                snprintf(sweep_name, sizeof sweep_name, "%s", pname);
                snprintf(sweep_spec, sizeof sweep_spec, "%s", pvalue);
            } else {
                size_t used = strlen(fixed);
                snprintf(fixed + used, sizeof fixed - used, "%s%s=%s", used ? "," : "", pname,
                         pvalue);
            }
            have = 0;
        }
        if (!tok) break;
        char *eq = strchr(tok, '=');
        if (!eq) {
            complain( "xchg-bench: --algo %s: '%s' is not param=value\n", spec, tok);
            return 1;
        }
        snprintf(pname, sizeof pname, "%.*s", (int)(eq - tok), tok);
        snprintf(pvalue, sizeof pvalue, "%s", eq + 1);
        have = 1;
    }
    char text[2048];
    if (!sweep_name[0]) {
        snprintf(text, sizeof text, "%s%s%s", name, fixed[0] ? ":" : "", fixed);
        if (!valid(coll, spec, text)) return 1;
        return add(list, coll, text) != MPI_SUCCESS;
    }
    sweep_param p = {.coll = coll, .algo = algo, .param = -1};
    int num_params = 0;
    XCHG_Algorithm_get_info(coll, algo, NULL, NULL, NULL, NULL, &num_params);
    for (int i = 0; i < num_params && p.param < 0; i++) {
        XCHG_Param_get_info(coll, algo, i, &p.name, &p.kind, NULL, &p.min, &p.max, &p.num_names,
                            NULL);
        if (strcmp(p.name, sweep_name) == 0) p.param = i;
    }
    if (p.param < 0) {
        char params[1024];
        XCHG_Algorithm_describe(coll, algo, NULL, 0, params, sizeof params);
        complain( "xchg-bench: --algo %s: %s has no parameter '%s'; valid: %s\n", spec,
                name, sweep_name, num_params ? params : "(none)");
        return 1;
    }
    char(*values)[64] = malloc(MAX_VALUES * sizeof *values);
    int n = values ? sweep_values(&p, sweep_spec, nranks, values, MAX_VALUES) : -1;
    int failed = n < 0;
    for (int i = 0; i < n && !failed; i++) {
        snprintf(text, sizeof text, "%s:%s%s%s=%s", name, fixed, fixed[0] ? "," : "", sweep_name,
                 values[i]);
        failed = !valid(coll, spec, text) || add(list, coll, text) != MPI_SUCCESS;
    }
    free(values);
    return failed;
}

int bench_algos_expand(const bench_options *opt, int nranks, int rank, bench_algo_list *list)
{
    quiet = rank != 0;
    list->count = 0;
    list->selection = NULL;
    if (opt->num_algo_specs == 0) return expand_one(opt, "all", nranks, list);
    for (int i = 0; i < opt->num_algo_specs; i++)
        if (expand_one(opt, opt->algo_specs[i], nranks, list)) return 1;
    return 0;
}

void bench_algos_free(bench_algo_list *list)
{
    free(list->selection);
    list->selection = NULL;
    list->count = 0;
}
