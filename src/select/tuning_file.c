/*
 * Reading and validating a tuning file (format: docs/tuning.md) with
 * Jansson. Everything is checked at load, so that a mistake is reported once,
 * with the file and the line, before any collective runs: JSON syntax (line
 * and column from Jansson, duplicate keys included), unknown keys, wrong
 * types, inverted or negative ranges, unknown collectives, and every
 * algorithm string through xchg_choice_parse (whose message lists the valid
 * algorithms or parameter values). Lines of semantic errors come from
 * xchg_json_line (tuning_locate.c).
 *
 * Built without Jansson, reading any file is an error that says so.
 */
#include "tuning_file.h"

#include <stdlib.h>

#include "../core/error.h"

void xchg_tuning_table_free(xchg_tuning_table *table)
{
    if (!table) return;
    for (int c = 0; c < XCHG_NUM_COLL; c++) {
        for (int i = 0; i < table->num_rules[c]; i++) free(table->rules[c][i].algorithm);
        free(table->rules[c]);
    }
    free(table->mpi);
    free(table);
}

#ifndef XCHG_HAVE_JANSSON

int xchg_tuning_file_read(const char *path, xchg_tuning_table **out)
{
    *out = NULL;
    return xchg_error(MPI_ERR_OTHER,
                      "tuning file %s: xchg was built without Jansson (libjansson-dev), so "
                      "XCHG_TUNING_FILE cannot be read; rebuild xchg with Jansson or unset "
                      "XCHG_TUNING_FILE", path);
}

#else

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../core/registry.h"

#define MAX_DEPTH 6

/* Where the reader is: the file, its text, and the path to the value being
 * checked (for messages and line numbers). */
typedef struct reader {
    const char *path;
    const char *text;
    xchg_json_step at[MAX_DEPTH];
    int depth;
} reader;

static void push_key(reader *r, const char *key)
{
    r->at[r->depth++] = (xchg_json_step){.key = key};
}

static void push_index(reader *r, int index)
{
    r->at[r->depth++] = (xchg_json_step){.index = index};
}

/* "tuning file PATH:LINE: rules.alltoallv[2].algorithm: <what>". */
static int fail(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(reader *r, const char *fmt, ...)
{
    char what[768], where[160] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    for (int i = 0; i < r->depth; i++) {
        size_t len = strlen(where);
        if (r->at[i].key)
            snprintf(where + len, sizeof where - len, "%s%s", i ? "." : "", r->at[i].key);
        else
            snprintf(where + len, sizeof where - len, "[%d]", r->at[i].index);
    }
    return xchg_error(MPI_ERR_ARG, "tuning file %s:%d: %s%s%s", r->path,
                      xchg_json_line(r->text, r->at, r->depth), where, *where ? ": " : "",
                      what);
}

/* Every key of `object` is one of the NULL-terminated `allowed`. */
static int check_keys(reader *r, json_t *object, const char *const *allowed)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        int known = 0;
        for (const char *const *a = allowed; *a; a++) known |= strcmp(*a, key) == 0;
        if (known) continue;
        char list[256] = "";
        for (const char *const *a = allowed; *a; a++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     a == allowed ? "" : ", ", *a);
        push_key(r, key);
        return fail(r, "unknown key '%s'; valid keys here: %s", key, list);
    }
    return MPI_SUCCESS;
}

static int check_string(reader *r, json_t *object, const char *key)
{
    json_t *value = json_object_get(object, key);
    if (!value || json_is_string(value)) return MPI_SUCCESS;
    push_key(r, key);
    return fail(r, "must be a string");
}

/* A range key of a rule: n (= [n, n]) or [lo, hi] or [lo, null] (no upper
 * bound), integers >= min. A missing key: every value. */
static int read_range(reader *r, json_t *rule, const char *key, int64_t min,
                      xchg_tuning_range *range, int *present)
{
    json_t *value = json_object_get(rule, key);
    *range = (xchg_tuning_range){INT64_MIN, INT64_MAX};
    if (present) *present = value != NULL;
    if (!value) return MPI_SUCCESS;
    push_key(r, key);
    json_t *lo = value, *hi = value;
    if (json_is_array(value)) {
        lo = json_array_get(value, 0);
        hi = json_array_get(value, 1);
    }
    if (!json_is_integer(lo) || !(json_is_integer(hi) || (hi != lo && json_is_null(hi))) ||
        (json_is_array(value) && json_array_size(value) != 2))
        return fail(r, "must be an integer n or a range [lo, hi] of integers (hi may be null "
                       "for no upper bound)");
    range->lo = json_integer_value(lo);
    range->hi = json_is_null(hi) ? INT64_MAX : json_integer_value(hi);
    if (range->lo < min) return fail(r, "%lld is below the smallest valid value %lld",
                                     (long long)range->lo, (long long)min);
    if (range->lo > range->hi)
        return fail(r, "inverted range [%lld, %lld]: the first bound must not exceed the second",
                    (long long)range->lo, (long long)range->hi);
    r->depth--;
    return MPI_SUCCESS;
}

/* A rule's "form": "any" (the default: every call) or "persistent" (only a
 * persistent request's init: what online selection measured there). */
static int read_form(reader *r, json_t *rule, int *persistent_only)
{
    json_t *value = json_object_get(rule, "form");
    *persistent_only = 0;
    if (!value) return MPI_SUCCESS;
    push_key(r, "form");
    const char *form = json_is_string(value) ? json_string_value(value) : NULL;
    if (!form || (strcmp(form, "any") != 0 && strcmp(form, "persistent") != 0))
        return fail(r, "must be \"any\" (every call, the default) or \"persistent\" "
                       "(persistent requests' inits only)");
    *persistent_only = strcmp(form, "persistent") == 0;
    r->depth--;
    return MPI_SUCCESS;
}

static int read_rule(reader *r, xchg_coll coll, json_t *json, xchg_tuning_rule *rule)
{
    static const char *const keys[] = {"comm_size", "ppn", "nodes", "bytes", "max_block_bytes",
                                       "form", "algorithm", "comment", NULL};
    int rc;
    if (!json_is_object(json)) return fail(r, "a rule must be an object");
    if ((rc = check_keys(r, json, keys)) != MPI_SUCCESS) return rc;
    if ((rc = check_string(r, json, "comment")) != MPI_SUCCESS) return rc;
    if ((rc = read_form(r, json, &rule->persistent_only)) != MPI_SUCCESS) return rc;
    if ((rc = read_range(r, json, "comm_size", 1, &rule->comm_size, NULL)) != MPI_SUCCESS ||
        (rc = read_range(r, json, "ppn", 1, &rule->ppn, NULL)) != MPI_SUCCESS ||
        (rc = read_range(r, json, "nodes", 1, &rule->nodes, NULL)) != MPI_SUCCESS ||
        (rc = read_range(r, json, "bytes", 0, &rule->bytes, &rule->has_bytes)) != MPI_SUCCESS ||
        (rc = read_range(r, json, "max_block_bytes", 0, &rule->max_block_bytes,
                         &rule->has_max_block_bytes)) != MPI_SUCCESS)
        return rc;
    json_t *algorithm = json_object_get(json, "algorithm");
    if (!algorithm) return fail(r, "the rule has no \"algorithm\"");
    push_key(r, "algorithm");
    if (!json_is_string(algorithm)) return fail(r, "must be a string (\"name:param=value,...\")");
    xchg_choice choice;
    if (xchg_choice_parse(coll, json_string_value(algorithm), &choice) != MPI_SUCCESS) {
        char why[700];
        snprintf(why, sizeof why, "%s", XCHG_Last_error());
        return fail(r, "%s", why);
    }
    r->depth--;
    rule->algorithm = strdup(json_string_value(algorithm));
    if (!rule->algorithm) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

static int read_rules(reader *r, json_t *rules, xchg_tuning_table *table)
{
    if (!json_is_object(rules)) return fail(r, "must be an object of collective name: [rules]");
    const char *name;
    json_t *list;
    json_object_foreach(rules, name, list) {
        xchg_coll coll;
        push_key(r, name);
        if (xchg_coll_from_name(name, &coll) != MPI_SUCCESS)
            return fail(r, "unknown collective '%s': valid choices are alltoall, alltoallv, "
                           "alltoallw, allgather, neighbor_alltoallv", name);
        if (!json_is_array(list)) return fail(r, "must be an array of rules");
        size_t n = json_array_size(list);
        table->rules[coll] = calloc(n ? n : 1, sizeof *table->rules[coll]);
        if (!table->rules[coll]) return xchg_error(MPI_ERR_NO_MEM, "out of memory");
        for (size_t i = 0; i < n; i++) {
            push_index(r, (int)i);
            int rc = read_rule(r, coll, json_array_get(list, i), &table->rules[coll][i]);
            table->num_rules[coll] = (int)i + 1; /* freed with the table, even half-read */
            if (rc != MPI_SUCCESS) return rc;
            r->depth--;
        }
        r->depth--;
    }
    return MPI_SUCCESS;
}

/* "model": the six required constants of xchg_platform and the three optional
 * ones (absent: no per-byte overhead of eager messages, no node memory
 * limit), numbers >= 0. */
static int read_model(reader *r, json_t *model, xchg_tuning_table *table)
{
    static const char *const keys[] = {"alpha_local", "beta_local", "alpha_remote",
                                       "beta_remote", "overhead", "beta_copy",
                                       "overhead_per_byte", "eager_limit", "beta_node", NULL};
    enum { REQUIRED = 6 };
    double *fields[] = {&table->model.alpha_local, &table->model.beta_local,
                        &table->model.alpha_remote, &table->model.beta_remote,
                        &table->model.overhead, &table->model.beta_copy,
                        &table->model.overhead_per_byte, &table->model.eager_limit,
                        &table->model.beta_node};
    int rc;
    if (!json_is_object(model)) return fail(r, "must be an object of the model constants");
    if ((rc = check_keys(r, model, keys)) != MPI_SUCCESS) return rc;
    for (int i = 0; keys[i]; i++) {
        json_t *value = json_object_get(model, keys[i]);
        if (!value && i >= REQUIRED) { *fields[i] = 0; continue; }
        if (!value) return fail(r, "\"%s\" is missing: give all six constants (alpha_local, "
                                   "beta_local, alpha_remote, beta_remote, overhead, beta_copy) "
                                   "or no \"model\"", keys[i]);
        push_key(r, keys[i]);
        if (!json_is_number(value) || !(json_number_value(value) >= 0) ||
            !isfinite(json_number_value(value)))
            return fail(r, "must be a number >= 0 (seconds, or seconds per byte)");
        *fields[i] = json_number_value(value);
        r->depth--;
    }
    table->has_model = 1;
    return MPI_SUCCESS;
}

static int read_top(reader *r, json_t *root, xchg_tuning_table *table)
{
    static const char *const keys[] = {"xchg_tuning", "generated_by", "date", "mpi", "platform",
                                       "comment", "model", "rules", NULL};
    int rc;
    if (!json_is_object(root)) return fail(r, "the file must hold one JSON object");
    if ((rc = check_keys(r, root, keys)) != MPI_SUCCESS) return rc;
    json_t *version = json_object_get(root, "xchg_tuning");
    if (!version) return fail(r, "\"xchg_tuning\": 1 (the format version) is missing");
    push_key(r, "xchg_tuning");
    if (!json_is_integer(version) || json_integer_value(version) != 1)
        return fail(r, "unsupported format version (this xchg reads version 1)");
    r->depth--;
    for (int i = 1; i <= 5; i++)
        if ((rc = check_string(r, root, keys[i])) != MPI_SUCCESS) return rc;
    json_t *mpi = json_object_get(root, "mpi");
    if (mpi && !(table->mpi = strdup(json_string_value(mpi))))
        return xchg_error(MPI_ERR_NO_MEM, "out of memory");
    json_t *model = json_object_get(root, "model");
    if (model) {
        push_key(r, "model");
        if ((rc = read_model(r, model, table)) != MPI_SUCCESS) return rc;
        r->depth--;
    }
    json_t *rules = json_object_get(root, "rules");
    if (!rules) return fail(r, "\"rules\" is missing");
    push_key(r, "rules");
    return read_rules(r, rules, table);
}

/* The whole file as a string. */
static int read_text(const char *path, char **text)
{
    *text = NULL;
    FILE *file = fopen(path, "rb");
    if (!file) return xchg_error(MPI_ERR_FILE, "tuning file %s: cannot open: %s", path,
                                 strerror(errno));
    size_t size = 0, cap = 0, got;
    char *buf = NULL;
    do {
        if (size + 4096 + 1 > cap) {
            cap = 2 * cap + 4096 + 1;
            char *bigger = realloc(buf, cap);
            if (!bigger) {
                free(buf);
                fclose(file);
                return xchg_error(MPI_ERR_NO_MEM, "tuning file %s: out of memory", path);
            }
            buf = bigger;
        }
        got = fread(buf + size, 1, 4096, file);
        size += got;
    } while (got == 4096);
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        free(buf);
        return xchg_error(MPI_ERR_FILE, "tuning file %s: cannot read: %s", path, strerror(errno));
    }
    buf[size] = '\0';
    if (strlen(buf) != size) {
        free(buf);
        return xchg_error(MPI_ERR_ARG, "tuning file %s: contains a NUL byte (not a JSON text)",
                          path);
    }
    *text = buf;
    return MPI_SUCCESS;
}

int xchg_tuning_file_read(const char *path, xchg_tuning_table **out)
{
    char *text;
    *out = NULL;
    int rc = read_text(path, &text);
    if (rc != MPI_SUCCESS) return rc;
    json_error_t error;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &error);
    if (!root) {
        free(text);
        return xchg_error(MPI_ERR_ARG, "tuning file %s:%d:%d: JSON syntax error: %s", path,
                          error.line, error.column, error.text);
    }
    xchg_tuning_table *table = calloc(1, sizeof *table);
    reader r = {.path = path, .text = text};
    rc = table ? read_top(&r, root, table) : xchg_error(MPI_ERR_NO_MEM, "out of memory");
    json_decref(root);
    free(text);
    if (rc != MPI_SUCCESS) {
        xchg_tuning_table_free(table);
        return rc;
    }
    *out = table;
    return MPI_SUCCESS;
}

#endif
