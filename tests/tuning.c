/*
 * xchg-tuning: the tuning file reader (src/select/tuning.c).
 *
 * Writes temporary files and checks: a good file's lookups (matching rules,
 * first match wins, open ranges, ppn over every node, unknown bytes -1, a
 * collective without rules), its model constants, XCHG_TUNING_FILE read at the
 * first lookup, no file; then each kind of bad file fails with an error whose
 * message names the file and the line of the mistake (JSON syntax, duplicate
 * key, unknown key, unknown collective, unknown algorithm, unknown parameter,
 * invalid parameter value, inverted range, wrong types, incomplete model,
 * unsupported version, missing file), and the error is returned again by
 * every later lookup. Then the files given as arguments (e.g. one written by
 * tools/xchg-tune) must load, and their first rules' selections are printed.
 *
 * usage: mpirun -n 1|2 xchg-tuning [FILE...]
 * The last line is "N passed, N failed"; the exit status is 1 on failure.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkstemp */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "select/tuning.h"
#include "xchg.h"

static int rank, passed, failed;

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        fprintf(stderr, "rank %d: FAIL: %s%s%s\n", rank, what, detail ? ": " : "",
                detail ? detail : "");
    }
}

/* A temporary file holding `text`; its name in `path` (PATH_MAX-sized). */
static void write_temp(const char *text, char *path, size_t len)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/xchg-tuning-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    FILE *file = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!file || fputs(text, file) == EOF || fclose(file) != 0) {
        fprintf(stderr, "rank %d: cannot write %s\n", rank, path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static xchg_select_input input(xchg_coll coll, int size, int nodes, int ppn_min, int ppn_max,
                               long long bytes)
{
    return (xchg_select_input){.coll = coll, .comm_size = size, .num_nodes = nodes,
                               .min_node_size = ppn_min, .max_node_size = ppn_max,
                               .bytes = bytes, .max_block_bytes = bytes};
}

static void expect_selection(xchg_select_input in, const char *want, const char *what)
{
    const char *got = "(not set)";
    int rc = xchg_tuning_lookup(&in, &got);
    char detail[512];
    snprintf(detail, sizeof detail, "rc %d, got %s, want %s (%s)", rc, got ? got : "NULL",
             want ? want : "NULL", rc ? XCHG_Last_error() : "");
    check(rc == MPI_SUCCESS && (want ? got && strcmp(got, want) == 0 : got == NULL), what,
          detail);
}

static const char *good_file =
    "{\"xchg_tuning\": 1, \"generated_by\": \"tests/tuning.c\", \"mpi\": \"%.200s\",\n"
    " \"comment\": \"a file for the reader's test\",\n"
    " \"model\": {\"alpha_local\": 5e-7, \"beta_local\": 1e-10, \"alpha_remote\": 2e-6,\n"
    "           \"beta_remote\": 1e-9, \"overhead\": 1e-7, \"beta_copy\": 5e-11,\n"
    "           \"beta_node\": 2e-11},\n"
    " \"rules\": {\n"
    "  \"alltoallv\": [\n"
    "   {\"comm_size\": [2, 16], \"ppn\": [1, 8], \"bytes\": [0, 1024], \"algorithm\": \"parlogna:radix=4\"},\n"
    "   {\"comm_size\": [2, 16], \"bytes\": [1025, null], \"algorithm\": \"scattered:batch=8\"},\n"
    "   {\"comm_size\": 32, \"nodes\": [2, 4], \"algorithm\": \"pairwise\"},\n"
    "   {\"comment\": \"everything else\", \"algorithm\": \"nonblocking\"}],\n"
    "  \"alltoall\": [\n"
    "   {\"bytes\": [0, 64], \"form\": \"persistent\", \"algorithm\": \"linear\"},\n"
    "   {\"bytes\": [0, 64], \"form\": \"any\", \"algorithm\": \"bruck\"},\n"
    "   {\"bytes\": [0, 128], \"algorithm\": \"pairwise\"},\n"
    "   {\"max_block_bytes\": [4096, null], \"algorithm\": \"scattered\"}],\n"
    "  \"allgather\": []}}\n";

static void test_good(const char *library)
{
    char text[4096], path[4096];
    snprintf(text, sizeof text, good_file, library);
    write_temp(text, path, sizeof path);

    /* Read from XCHG_TUNING_FILE at the first lookup. */
    setenv("XCHG_TUNING_FILE", path, 1);
    expect_selection(input(XCHG_ALLTOALLV, 4, 1, 4, 4, 100), "parlogna:radix=4",
                     "env file: first rule");
    unsetenv("XCHG_TUNING_FILE");

    check(xchg_tuning_load(path) == MPI_SUCCESS, "good file loads", XCHG_Last_error());
    expect_selection(input(XCHG_ALLTOALLV, 16, 2, 8, 8, 1024), "parlogna:radix=4",
                     "inclusive upper bounds");
    expect_selection(input(XCHG_ALLTOALLV, 4, 1, 4, 4, 5000), "scattered:batch=8",
                     "open upper bound");
    expect_selection(input(XCHG_ALLTOALLV, 4, 1, 4, 4, -1), "nonblocking",
                     "unknown bytes skip rules with bytes");
    expect_selection(input(XCHG_ALLTOALLV, 12, 1, 3, 9, 100), "nonblocking",
                     "ppn must hold on every node");
    expect_selection(input(XCHG_ALLTOALLV, 32, 4, 8, 8, -1), "pairwise", "single value range");
    expect_selection(input(XCHG_ALLTOALLV, 32, 1, 32, 32, -1), "nonblocking", "nodes range");
    expect_selection(input(XCHG_ALLTOALL, 8, 1, 8, 8, 64), "bruck",
                     "first rule wins (a persistent one matches inits only)");
    xchg_select_input init = input(XCHG_ALLTOALL, 8, 1, 8, 8, 64);
    init.persistent_init = 1;
    expect_selection(init, "linear", "a persistent init: the persistent rule first");
    expect_selection(input(XCHG_ALLTOALL, 8, 1, 8, 8, 100), "pairwise", "second rule");
    expect_selection(input(XCHG_ALLTOALL, 8, 1, 8, 8, 5000), "scattered", "max_block_bytes");
    expect_selection(input(XCHG_ALLTOALL, 8, 1, 8, 8, 1000), NULL, "no rule matches");
    expect_selection(input(XCHG_ALLGATHER, 8, 1, 8, 8, 1000), NULL, "empty rule list");
    expect_selection(input(XCHG_NEIGHBOR_ALLTOALLV, 8, 1, 8, 8, -1), NULL, "no rule list");
    expect_selection(input(XCHG_ALLTOALLW, 4, 1, 4, 4, 100), "parlogna:radix=4",
                     "alltoallw without rules of its own: alltoallv's");

    const xchg_platform *plat = NULL;
    int rc = xchg_tuning_platform(&plat);
    check(rc == MPI_SUCCESS && plat && plat->alpha_local == 5e-7 && plat->beta_copy == 5e-11,
          "model constants", NULL);
    check(rc == MPI_SUCCESS && plat && plat->beta_node == 2e-11 &&
              plat->overhead_per_byte == 0 && plat->eager_limit == 0,
          "optional model constants: given, and absent ones 0", NULL);

    /* alltoallw's own rules, when it has some, ahead of alltoallv's. */
    char wpath[4096];
    write_temp("{\"xchg_tuning\": 1, \"rules\": {\n"
               " \"alltoallv\": [{\"algorithm\": \"nonblocking\"}],\n"
               " \"alltoallw\": [{\"bytes\": [0, 64], \"algorithm\": \"pairwise\"}]}}\n",
               wpath, sizeof wpath);
    check(xchg_tuning_load(wpath) == MPI_SUCCESS, "alltoallw file loads", XCHG_Last_error());
    expect_selection(input(XCHG_ALLTOALLW, 4, 1, 4, 4, 64), "pairwise", "alltoallw's own rule");
    expect_selection(input(XCHG_ALLTOALLW, 4, 1, 4, 4, 100), NULL,
                     "alltoallw's rules only, once it has some");
    expect_selection(input(XCHG_ALLTOALLV, 4, 1, 4, 4, 64), "nonblocking", "alltoallv's rule");
    unlink(wpath);

    check(xchg_tuning_load(NULL) == MPI_SUCCESS, "no file loads", NULL);
    expect_selection(input(XCHG_ALLTOALLV, 4, 1, 4, 4, 100), NULL, "no file: no selection");
    rc = xchg_tuning_platform(&plat);
    check(rc == MPI_SUCCESS && plat == NULL, "no file: no model", NULL);
    unlink(path);
}

/* A bad file: the load and a later lookup fail; the message names the file,
 * the line (as "PATH:LINE:") and contains `expect`. */
static void test_bad(const char *name, const char *text, int line, const char *expect)
{
    char path[4096], where[4200];
    write_temp(text, path, sizeof path);
    int rc = xchg_tuning_load(path);
    snprintf(where, sizeof where, "%s:%d:", path, line);
    const char *msg = XCHG_Last_error();
    check(rc != MPI_SUCCESS && strstr(msg, where) && strstr(msg, expect), name, msg);
    xchg_select_input in = input(XCHG_ALLTOALLV, 4, 1, 4, 4, 100);
    const char *selection = "(not set)";
    rc = xchg_tuning_lookup(&in, &selection);
    check(rc != MPI_SUCCESS && selection == NULL && strstr(XCHG_Last_error(), where),
          "the error stays", name);
    if (rank == 0 && getenv("XCHG_TEST_VERBOSE")) printf("%s: %s\n", name, msg);
    unlink(path);
}

#define HEAD "{\"xchg_tuning\": 1,\n \"rules\": {\"alltoallv\": [\n"

static void test_bad_files(void)
{
    test_bad("syntax error", HEAD "  {\"algorithm\": \"scattered\"}\n  {\"algorithm\": \"x\"}]}}\n",
             4, "JSON syntax error");
    test_bad("duplicate key", HEAD "  {\"algorithm\": \"scattered\",\n   \"algorithm\": \"pairwise\"}]}}\n",
             4, "duplicate");
    test_bad("unknown algorithm",
             HEAD "  {\"algorithm\": \"scattered\"},\n  {\"bytes\": 8,\n   \"algorithm\": \"scatterred\"}]}}\n",
             5, "unknown alltoallv algorithm 'scatterred': valid choices are");
    test_bad("unknown parameter",
             HEAD "  {\"algorithm\": \"parlogna:radix=4\"},\n  {\"algorithm\": \"parlogna:radius=4\"}]}}\n",
             4, "no parameter 'radius'");
    test_bad("invalid parameter value",
             HEAD "  {\"algorithm\": \"pairwise:order=xor\"},\n\n  {\"algorithm\": \"pairwise:order=zigzag\"}]}}\n",
             5, "zigzag");
    test_bad("inverted range", HEAD "  {\"comm_size\": [16, 2], \"algorithm\": \"scattered\"}]}}\n",
             3, "inverted range [16, 2]");
    test_bad("negative bytes", HEAD "  {\"bytes\": [-1, 2], \"algorithm\": \"scattered\"}]}}\n", 3,
             "below the smallest valid value");
    test_bad("wrong type of range", HEAD "  {\"algorithm\": \"scattered\",\n   \"ppn\": \"4\"}]}}\n",
             4, "must be an integer");
    test_bad("wrong type of algorithm", HEAD "  {\"algorithm\": 4}]}}\n", 3, "must be a string");
    test_bad("missing algorithm", HEAD "  {\"bytes\": 4},\n  {\"bytes\": 8}]}}\n", 3,
             "has no \"algorithm\"");
    test_bad("unknown key", HEAD "  {\"algorithm\": \"scattered\",\n   \"comm_sise\": 4}]}}\n", 4,
             "unknown key 'comm_sise'");
    test_bad("unknown form", HEAD "  {\"algorithm\": \"scattered\",\n   \"form\": \"blocking\"}]}}\n",
             4, "must be \"any\"");
    test_bad("unknown top-level key", "{\"xchg_tuning\": 1, \"rules\": {},\n \"rule\": 1}\n", 2,
             "unknown key 'rule'");
    test_bad("unknown collective", "{\"xchg_tuning\": 1,\n \"rules\": {\n  \"alltoallx\": []}}\n",
             3, "unknown collective 'alltoallx'");
    test_bad("rules not an array", "{\"xchg_tuning\": 1,\n \"rules\": {\"alltoall\": {}}}\n", 2,
             "must be an array");
    test_bad("incomplete model",
             "{\"xchg_tuning\": 1, \"rules\": {},\n \"model\": {\"alpha_local\": 1e-6}}\n", 2,
             "\"beta_local\" is missing");
    test_bad("negative model constant",
             "{\"xchg_tuning\": 1, \"rules\": {},\n \"model\": {\"alpha_local\": 1e-6, "
             "\"beta_local\": 1e-9,\n \"alpha_remote\": -1, \"beta_remote\": 0, \"overhead\": 0, "
             "\"beta_copy\": 0}}\n", 3, "must be a number >= 0");
    test_bad("negative optional model constant",
             "{\"xchg_tuning\": 1, \"rules\": {},\n \"model\": {\"alpha_local\": 1e-6, "
             "\"beta_local\": 1e-9, \"alpha_remote\": 1, \"beta_remote\": 0, \"overhead\": 0, "
             "\"beta_copy\": 0,\n \"eager_limit\": -4096}}\n", 3, "must be a number >= 0");
    test_bad("wrong version", "{\"rules\": {},\n \"xchg_tuning\": 2}\n", 2,
             "unsupported format version");
    test_bad("missing rules", "{\"xchg_tuning\": 1}\n", 1, "\"rules\" is missing");
    test_bad("not an object", "[1, 2]\n", 1, "one JSON object");

    const char *missing = "/nonexistent-dir/xchg-tuning.json";
    int rc = xchg_tuning_load(missing);
    check(rc != MPI_SUCCESS && strstr(XCHG_Last_error(), missing) &&
              strstr(XCHG_Last_error(), "No such file"),
          "missing file", XCHG_Last_error());
}

/* Files from the command line (e.g. written by tools/xchg-tune) must load. */
static void test_given(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int rc = xchg_tuning_load(argv[i]);
        check(rc == MPI_SUCCESS, argv[i], rc ? XCHG_Last_error() : NULL);
        if (rc != MPI_SUCCESS || rank != 0) continue;
        static const char *const names[] = {"alltoall", "alltoallv", "allgather"};
        for (int c = 0; c < 3; c++)
            for (long long bytes = 8; bytes <= 32768; bytes *= 8) {
                xchg_select_input in = input((xchg_coll)c, 4, 2, 2, 2, bytes);
                const char *selection;
                if (xchg_tuning_lookup(&in, &selection) == MPI_SUCCESS)
                    printf("%s: %s P=4 nodes=2x2 bytes=%lld -> %s\n", argv[i], names[c], bytes,
                           selection ? selection : "(no rule)");
            }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(library, &len);
    library[strcspn(library, ",\n")] = '\0'; /* as xchg-bench writes it */
    for (char *c = library; *c; c++)
        if (*c == '\t') *c = ' ';

#ifndef XCHG_HAVE_JANSSON
    /* Built without Jansson: any file is an error that says so. */
    (void)library;
    int rc = xchg_tuning_load("/some/file.json");
    check(rc != MPI_SUCCESS && strstr(XCHG_Last_error(), "/some/file.json") &&
              strstr(XCHG_Last_error(), "without Jansson"),
          "built without Jansson", XCHG_Last_error());
    (void)argc; (void)argv; (void)test_good; (void)test_bad_files; (void)test_given;
#else
    test_good(library);
    test_bad_files();
    test_given(argc, argv);
    /* Left loaded: MPI_Finalize frees it (valgrind/ASan see no leak). */
    char path[4096];
    write_temp("{\"xchg_tuning\": 1, \"rules\": {\"alltoall\": [{\"algorithm\": \"bruck\"}]}}",
               path, sizeof path);
    check(xchg_tuning_load(path) == MPI_SUCCESS, "a file left for MPI_Finalize", NULL);
    unlink(path);
#endif

    int counts[2] = {passed, failed}, total[2];
    MPI_Reduce(counts, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%d passed, %d failed\n", total[0], total[1]);
    MPI_Finalize();
    return total[1] != 0 && rank == 0;
}
