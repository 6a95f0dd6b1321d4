/*
 * xchg-amg's command line (amg.h; the usage in xchg_amg.c's header
 * comment).
 */
#include "amg.h"

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr,
                "usage: xchg-amg [--n=64] [--eps=0.001] [--theta=45] [--procgrid=PXxPY]\n"
                "  [--algos=standard,mpi,locality,locality:balance=bytes,locality:dedup=1]\n"
                "  [--iters=100] [--warmup=10]\n"
                "  [--reps=3] [--init=auto|plain|ext] [--strong=0.25] [--coarsen=10]\n"
                "  [--interp=6] [--pmax=4] [--agg-levels=0] [--max-levels=25] [--solve]\n"
                "  [--comm=graph|plain] [--csv=FILE] [--no-header] [--inject-error]\n");
    MPI_Finalize();
    exit(2);
}

static long num_arg(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) usage();
    return v;
}

static double real_arg(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end) usage();
    return v;
}

void parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->n = 64;
    o->eps = 0.001;
    o->theta = 45.0;
    snprintf(o->algos, sizeof o->algos, "%s",
             "standard,mpi,locality,locality:balance=bytes,locality:dedup=1");
    o->iters = 100;
    o->warmup = 10;
    o->reps = 3;
    o->strong = 0.25;
    o->coarsen = 10; /* HMIS */
    o->interp = 6;   /* extended+i */
    o->pmax = 4;
    o->max_levels = 25;
    o->header = 1;
    o->graph = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define OPT(name) (strncmp(a, name "=", sizeof name) == 0 ? a + sizeof name : NULL)
        const char *v;
        if ((v = OPT("--n"))) o->n = num_arg(v, 2, 1L << 20);
        else if ((v = OPT("--eps"))) o->eps = real_arg(v);
        else if ((v = OPT("--theta"))) o->theta = real_arg(v);
        else if ((v = OPT("--procgrid"))) {
            if (sscanf(v, "%dx%d", &o->px, &o->py) != 2 || o->px < 1 || o->py < 1) usage();
        } else if ((v = OPT("--algos"))) {
            if (!*v || strlen(v) >= sizeof o->algos) usage();
            snprintf(o->algos, sizeof o->algos, "%s", v);
        } else if ((v = OPT("--iters"))) o->iters = (int)num_arg(v, 1, 1000000);
        else if ((v = OPT("--warmup"))) o->warmup = (int)num_arg(v, 1, 1000000);
        else if ((v = OPT("--reps"))) o->reps = (int)num_arg(v, 1, 1000);
        else if ((v = OPT("--init"))) {
            if (!strcmp(v, "auto")) o->init = 0;
            else if (!strcmp(v, "plain")) o->init = 1;
            else if (!strcmp(v, "ext")) o->init = 2;
            else usage();
        } else if ((v = OPT("--strong"))) o->strong = real_arg(v);
        else if ((v = OPT("--coarsen"))) o->coarsen = (int)num_arg(v, 0, 100);
        else if ((v = OPT("--interp"))) o->interp = (int)num_arg(v, 0, 100);
        else if ((v = OPT("--pmax"))) o->pmax = (int)num_arg(v, 0, 1000);
        else if ((v = OPT("--agg-levels"))) o->agg_levels = (int)num_arg(v, 0, 100);
        else if ((v = OPT("--max-levels"))) o->max_levels = (int)num_arg(v, 1, 100);
        else if ((v = OPT("--csv"))) o->csv = v;
        else if ((v = OPT("--comm"))) {
            if (!strcmp(v, "graph")) o->graph = 1;
            else if (!strcmp(v, "plain")) o->graph = 0;
            else usage();
        }
        else if (!strcmp(a, "--solve")) o->solve = 1;
        else if (!strcmp(a, "--no-header")) o->header = 0;
        else if (!strcmp(a, "--inject-error")) o->inject = 1;
        else usage();
#undef OPT
    }
    if (!o->px) {
        int dims[2] = {0, 0};
        MPI_Dims_create(nranks, 2, dims);
        o->px = dims[0];
        o->py = dims[1];
    }
    if ((long)o->px * o->py != nranks) {
        if (rank == 0) fprintf(stderr, "xchg-amg: --procgrid %dx%d needs %d ranks, not %d\n",
                               o->px, o->py, o->px * o->py, nranks);
        usage();
    }
    if (o->px > o->n || o->py > o->n) {
        if (rank == 0) fprintf(stderr, "xchg-amg: the grid (%ld) is smaller than the "
                               "process grid\n", o->n);
        usage();
    }
}
