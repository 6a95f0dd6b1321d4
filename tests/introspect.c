/*
 * xchg-introspect: the public introspection API of include/xchg.h, through
 * <xchg.h> alone (as a tool or binding sees it).
 *
 * Checks: the collectives and their names; every algorithm's info and every
 * parameter's (defaults inside their ranges or among their names, the
 * listing text of each parameter, names in range and out of range);
 * XCHG_Selection_normalize (full strings, idempotent, errors); the topology
 * of MPI_COMM_WORLD (every rank on exactly one node); applicability
 * (pairwise:order=xor only at a power-of-two P); cases: bad arguments, the
 * shape of a model case, a communicator case's selection equal to what
 * XCHG_Comm_get_algorithm answers and, on equal nodes, to the model case of
 * the same shape, the ranking sorted and each candidate's prediction equal
 * to XCHG_Case_predict of its selection, the per-communicator choice as the
 * reason; XCHG_Comm_message_time. Bad calls return MPI_ERR_ARG and leave a
 * message in XCHG_Last_error().
 *
 * usage: mpirun -n P [-x XCHG_VIRTUAL_NODES=N] xchg-introspect
 * The last line is "N passed, N failed" (rank 0); exit status 1 on failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xchg.h"

static int rank, passed, failed;

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    fprintf(stderr, "rank %d: FAIL: %s%s%s\n", rank, what, detail ? ": " : "",
            detail ? detail : "");
}

/* A bad call: MPI_ERR_ARG and a message. */
static void check_error(int rc, const char *what)
{
    check(rc == MPI_ERR_ARG && XCHG_Last_error()[0] != '\0', what, XCHG_Last_error());
    XCHG_Clear_error();
}

static void check_registry(void)
{
    int ncoll = 0;
    const char *name;
    check(XCHG_Collective_count(&ncoll) == MPI_SUCCESS && ncoll == 6, "six collectives", NULL);
    check_error(XCHG_Collective_get_name(ncoll, &name), "collective past the end");
    check_error(XCHG_Algorithm_count("bogus", &ncoll), "unknown collective");
    for (int c = 0; c < ncoll; c++) {
        const char *coll;
        int count = 0;
        check(XCHG_Collective_get_name(c, &coll) == MPI_SUCCESS &&
                  XCHG_Algorithm_count(coll, &count) == MPI_SUCCESS && count > 1,
              "collective with algorithms", NULL);
        check_error(XCHG_Algorithm_get_info(coll, count, &name, NULL, NULL, NULL, NULL),
                    "algorithm past the end");
        for (int a = 0; a < count; a++) {
            const char *summary, *reference;
            int hierarchical, num_params;
            char all[2048], text[1024], normal[512];
            int rc = XCHG_Algorithm_get_info(coll, a, &name, &summary, &reference,
                                             &hierarchical, &num_params);
            check(rc == MPI_SUCCESS && name[0] && summary[0] && reference &&
                      (hierarchical == 0 || hierarchical == 1) && num_params >= 0,
                  "algorithm info", name);
            XCHG_Algorithm_describe(coll, a, NULL, 0, all, sizeof all);
            check(XCHG_Selection_normalize(coll, name, normal, sizeof normal) == MPI_SUCCESS &&
                      strncmp(normal, name, strlen(name)) == 0 &&
                      (num_params == 0) == (strchr(normal, ':') == NULL),
                  "a name normalizes to its full selection", normal);
            char again[512];
            check(XCHG_Selection_normalize(coll, normal, again, sizeof again) == MPI_SUCCESS &&
                      strcmp(again, normal) == 0,
                  "normalize is idempotent", again);
            check_error(XCHG_Param_get_info(coll, a, num_params, NULL, NULL, NULL, NULL, NULL,
                                            NULL, NULL),
                        "parameter past the end");
            for (int p = 0; p < num_params; p++) {
                const char *pname, *help, *value;
                int kind, num_names;
                long long def, min, max;
                rc = XCHG_Param_get_info(coll, a, p, &pname, &kind, &def, &min, &max,
                                         &num_names, &help);
                XCHG_Param_describe(coll, a, p, text, sizeof text);
                check(rc == MPI_SUCCESS && strncmp(text, pname, strlen(pname)) == 0 &&
                          text[strlen(pname)] == '=' && strstr(all, text) != NULL,
                      "parameter text is the listing's", text);
                if (kind == XCHG_PARAM_KIND_INTEGER) {
                    int in_range = def >= (min == XCHG_BOUND_P ? 1 : min) &&
                                   (max == XCHG_BOUND_P || def <= max);
                    check(in_range || (def < 0 && -def - 1 < num_names), "integer default",
                          text);
                } else {
                    check((kind == XCHG_PARAM_KIND_NAME || kind == XCHG_PARAM_KIND_ALGORITHM) &&
                              num_names > 0 && def >= 0 && def < num_names && min == 0 &&
                              max == num_names - 1,
                          "named default", text);
                    char defname[512];
                    XCHG_Param_get_name(coll, a, p, (int)def, &value);
                    snprintf(defname, sizeof defname, "%s=%s", pname, value);
                    check(strstr(normal, defname) != NULL, "default in the full selection",
                          defname);
                }
                for (int i = 0; i < num_names; i++)
                    check(XCHG_Param_get_name(coll, a, p, i, &value) == MPI_SUCCESS && value[0] &&
                              strstr(text, value) != NULL,
                          "each name is listed", text);
                check_error(XCHG_Param_get_name(coll, a, p, num_names, &value),
                            "name past the end");
            }
        }
    }
    char buf[256];
    check_error(XCHG_Selection_normalize("alltoall", "bogus", buf, sizeof buf),
                "normalize an unknown algorithm");
    check_error(XCHG_Selection_normalize("alltoall", "scattered:nope=1", buf, sizeof buf),
                "normalize an unknown parameter");
    check(XCHG_Selection_normalize("alltoall", "scattered:batch=4", buf, sizeof buf) ==
                  MPI_SUCCESS && strcmp(buf, "scattered:batch=4") == 0,
          "normalize keeps given values", buf);
}

static void check_topology(MPI_Comm comm, int size)
{
    int nodes = 0, is_virtual, is_block, total = 0, ok = 1, node_size;
    int *seen = calloc((size_t)size, sizeof *seen), *ranks = malloc((size_t)size * sizeof *ranks);
    check(XCHG_Comm_get_topology(comm, &nodes, &is_virtual, &is_block) == MPI_SUCCESS &&
              nodes >= 1 && nodes <= size,
          "topology", NULL);
    for (int n = 0; n < nodes; n++) {
        XCHG_Comm_get_node(comm, n, size, ranks, &node_size);
        for (int l = 0; l < node_size; l++) ok &= ranks[l] >= 0 && ranks[l] < size && !seen[ranks[l]]++;
        total += node_size;
    }
    check(ok && total == size, "every rank on exactly one node", NULL);
    check_error(XCHG_Comm_get_node(comm, nodes, size, ranks, &node_size), "node past the end");
    free(seen);
    free(ranks);
}

static void check_cases(MPI_Comm comm, int size)
{
    XCHG_Case xcase = NULL, model = NULL;
    char chosen[512], expected[512], modelled[512], text[512];
    const char *why;
    int reason, P, nodes, min_node, max_node, count = 0, applicable;
    long long model_bytes;
    check_error(XCHG_Case_create("alltoall", 0, 4, 64, &xcase), "case of no ranks");
    check_error(XCHG_Case_create("bogus", 8, 4, 64, &xcase), "case of an unknown collective");
    check(xcase == NULL, "no case after an error", NULL);
    check(XCHG_Case_create("allgather", 10, 4, 1000, &xcase) == MPI_SUCCESS &&
              XCHG_Case_get_shape(xcase, &P, &nodes, &min_node, &max_node, &model_bytes) ==
                  MPI_SUCCESS &&
              P == 10 && nodes == 3 && min_node == 2 && max_node == 4 && model_bytes <= 1000 &&
              model_bytes > 800,
          "shape of 10 ranks on nodes of 4", NULL);
    check_error(XCHG_Case_set_neighbor_pattern(xcase, 1, 1, 8, 8, 1), "pattern of allgather");
    XCHG_Case_free(&xcase);
    check(xcase == NULL, "free sets NULL", NULL);

    /* On the communicator: what XCHG_Comm_get_algorithm answers. */
    XCHG_Comm_set_algorithm(comm, "alltoall", "");
    XCHG_Comm_get_algorithm(comm, "alltoall", 0, 4096, expected, sizeof expected);
    check(XCHG_Comm_case_create(comm, "alltoall", 4096, &xcase) == MPI_SUCCESS &&
              XCHG_Case_select(xcase, chosen, sizeof chosen, &reason, &why) == MPI_SUCCESS &&
              strcmp(chosen, expected) == 0 && reason == XCHG_REASON_MODEL,
          "communicator case selects as XCHG_Comm_get_algorithm", chosen);
    XCHG_Case_get_shape(xcase, &P, &nodes, &min_node, &max_node, NULL);
    check(P == size, "communicator case's P", NULL);
    if (min_node == max_node) { /* the same machine described by P and Q */
        XCHG_Case_create("alltoall", P, max_node, 4096, &model);
        XCHG_Case_select(model, modelled, sizeof modelled, &reason, NULL);
        check(strcmp(modelled, chosen) == 0 && reason == XCHG_REASON_MODEL,
              "model case of the same shape selects the same", modelled);
        XCHG_Case_free(&model);
    }
    check(XCHG_Case_rank(xcase, &count) == MPI_SUCCESS && count > 1, "a ranking", NULL);
    double previous = 0;
    for (int i = 0; i < count; i++) {
        double seconds, terms[4], predicted;
        XCHG_Case_get_candidate(xcase, i, text, sizeof text, &seconds, terms);
        check(seconds >= previous && seconds >= 0 &&
                  XCHG_Case_predict(xcase, text, &predicted) == MPI_SUCCESS &&
                  fabs(predicted - seconds) <= 1e-9 * (1 + seconds),
              "ranking sorted, each prediction its candidate's", text);
        previous = seconds;
        if (i == 0) check(strcmp(text, chosen) == 0, "the model chooses its cheapest", text);
    }
    double seconds;
    check(XCHG_Case_predict(xcase, "mpi", &seconds) == MPI_SUCCESS && seconds == -1.0,
          "mpi is unmodelled", NULL);
    check_error(XCHG_Case_get_candidate(xcase, count, text, sizeof text, NULL, NULL),
                "candidate past the end");
    int power_of_two = (size & (size - 1)) == 0;
    int rc = XCHG_Case_predict(xcase, "pairwise:order=xor", &seconds);
    check(power_of_two ? rc == MPI_SUCCESS && seconds >= 0 : rc == MPI_ERR_ARG,
          "prediction only where it can run", XCHG_Last_error());
    XCHG_Clear_error();
    check(XCHG_Comm_check_algorithm(comm, "alltoall", "pairwise:order=xor", &applicable, text,
                                    sizeof text) == MPI_SUCCESS &&
              applicable == power_of_two &&
              (applicable ? strcmp(text, "pairwise:order=xor") == 0 : strstr(text, "power") != NULL),
          "applicability on the communicator", text);
    check_error(XCHG_Comm_check_algorithm(comm, "alltoall", "bogus", &applicable, text,
                                          sizeof text),
                "check of an unknown algorithm");
    XCHG_Case_free(&xcase);

    /* The per-communicator choice decides, and says so. */
    XCHG_Comm_set_algorithm(comm, "alltoall", "linear");
    XCHG_Comm_case_create(comm, "alltoall", 64, &xcase);
    check(XCHG_Case_select(xcase, chosen, sizeof chosen, &reason, &why) == MPI_SUCCESS &&
              strcmp(chosen, "linear") == 0 && reason == XCHG_REASON_COMM &&
              strcmp(why, "XCHG_Comm_set_algorithm") == 0,
          "the communicator's choice decides", why);
    XCHG_Case_free(&xcase);
    XCHG_Comm_set_algorithm(comm, "alltoall", "");

    /* neighbor_alltoallv: the block size follows the pattern. */
    XCHG_Case_create("neighbor_alltoallv", 64, 16, 0, &xcase);
    check(XCHG_Case_set_neighbor_pattern(xcase, 10, 5, 1000, 500, 3) == MPI_SUCCESS &&
              XCHG_Case_get_shape(xcase, NULL, NULL, NULL, NULL, &model_bytes) == MPI_SUCCESS &&
              model_bytes > 0 && model_bytes <= 100 &&
              XCHG_Case_select(xcase, chosen, sizeof chosen, NULL, NULL) == MPI_SUCCESS &&
              chosen[0],
          "neighbour pattern case", chosen);
    XCHG_Case_free(&xcase);

    int from_file = -1;
    check(XCHG_Model_get_constants_source(&from_file) == MPI_SUCCESS && from_file == 0,
          "built-in constants without a tuning file", NULL);
    double t = 0;
    check(XCHG_Comm_message_time(comm, 1024, 3, &t) == MPI_SUCCESS && t > 0, "message time",
          NULL);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_registry();
    check_topology(MPI_COMM_WORLD, size);
    check_cases(MPI_COMM_WORLD, size);
    int local[2] = {passed, failed}, total[2];
    MPI_Reduce(local, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("world size %d\n%d passed, %d failed\n", size, total[0], total[1]);
    MPI_Bcast(total, 2, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return total[1] ? 1 : 0;
}
