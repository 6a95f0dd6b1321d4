/*
 * Line numbers for the tuning file's semantic errors. Jansson reports a
 * position only for syntax errors; its values carry none. So after a
 * successful parse, an error found in a value is located by walking the raw
 * text again along the value's path (rules -> "alltoallv" -> [2] ->
 * "algorithm"). The text is known to be valid JSON at that point (Jansson
 * accepted it, duplicate keys rejected), so a walker that only skips strings,
 * numbers, literals, objects and arrays is exact, and a path names one value.
 * This is more robust than searching for the offending text, which may occur
 * several times (the same algorithm string in two rules). Keys with escape
 * sequences are compared after decoding the simple escapes; a key that
 * cannot be matched leaves the line of the enclosing value.
 */
#include "tuning_file.h"

#include <string.h>

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    return p;
}

/* p at the opening quote; returns the position after the closing one. */
static const char *skip_string(const char *p)
{
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : p;
}

static const char *skip_value(const char *p);

/* p at '{' or '['; returns the position after the matching bracket. */
static const char *skip_container(const char *p)
{
    char close = *p == '{' ? '}' : ']';
    p = skip_space(p + 1);
    while (*p && *p != close) {
        p = skip_value(p); /* a key, or a value */
        p = skip_space(p);
        if (*p == ':' || *p == ',') p = skip_space(p + 1);
    }
    return *p ? p + 1 : p;
}

static const char *skip_value(const char *p)
{
    if (*p == '"') return skip_string(p);
    if (*p == '{' || *p == '[') return skip_container(p);
    while (*p && !strchr(",]}: \t\r\n", *p)) p++; /* number, true, false, null */
    return p;
}

/* Whether the string at p (at its opening quote) decodes to `key`. */
static int key_equals(const char *p, const char *key)
{
    static const char escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";
    for (p++; *p && *p != '"'; p++, key++) {
        char c = *p;
        if (c == '\\') {
            if (!*++p) return 0;
            const char *e = strchr(escapes, *p);
            if (!e || (e - escapes) % 2) return 0; /* \uXXXX: not compared */
            c = e[1];
        }
        if (c != *key) return 0;
    }
    return *p == '"' && *key == '\0';
}

/* The start of the member `step` of the container at p, or NULL. */
static const char *find_member(const char *p, const xchg_json_step *step)
{
    if (*p != (step->key ? '{' : '[')) return NULL;
    p = skip_space(p + 1);
    for (int index = 0; *p && *p != '}' && *p != ']'; index++) {
        if (step->key) {
            int match = *p == '"' && key_equals(p, step->key);
            p = skip_space(skip_string(p));
            if (*p == ':') p = skip_space(p + 1);
            if (match) return p;
        } else if (index == step->index) {
            return p;
        }
        p = skip_space(skip_value(p));
        if (*p == ',') p = skip_space(p + 1);
    }
    return NULL;
}

int xchg_json_line(const char *text, const xchg_json_step *path, int depth)
{
    const char *at = skip_space(text);
    for (int i = 0; i < depth; i++) {
        const char *next = find_member(at, &path[i]);
        if (!next) break;
        at = next;
    }
    int line = 1;
    for (const char *p = text; p < at; p++)
        if (*p == '\n') line++;
    return line;
}
