/* Shared helpers for the fabmpi benchmark programs.
 *
 * Portable C99 + standard MPI only, so every program builds with any mpicc
 * (fabmpi, MPICH, Open MPI). Output is one machine-readable line per
 * measurement:
 *
 *   metric=<name> size=<bytes> value=<number> [key=value ...]
 *
 * Iteration counts are chosen from a short timed calibration so that every
 * cell takes about `target_ms`, whatever the MPI's speed: a slow or
 * oversubscribed MPI makes fewer iterations instead of making the run long.
 */
#ifndef FABMPI_BENCH_COMMON_H
#define FABMPI_BENCH_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int quick;          /* tiny sizes, few iterations: CI smoke */
    double target_ms;   /* time budget per measured cell */
    long min_iters;
    long max_iters;
    long max_size;      /* upper size bound (bytes), 0 = program default */
    long min_size;      /* lower size bound (bytes), -1 = program default */
    const char *only;   /* comma list of tests to run, NULL = all */
    long sizes[64];     /* explicit size list (overrides min/max) */
    int nsizes;
} bench_opts;

static inline void bench_die(const char *what)
{
    fprintf(stderr, "bench: FAILED: %s\n", what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static inline long bench_parse_size(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end && (*end == 'k' || *end == 'K')) v *= 1024.0;
    else if (end && (*end == 'm' || *end == 'M')) v *= 1024.0 * 1024.0;
    else if (end && (*end == 'g' || *end == 'G')) v *= 1024.0 * 1024.0 * 1024.0;
    return (long)v;
}

static inline void bench_usage(const char *prog, const char *extra)
{
    fprintf(stderr,
            "usage: %s [--quick] [--target-ms MS] [--min-iters N] [--max-iters N]\n"
            "          [--min-size B] [--max-size B] [--sizes B,B,...] [--only a,b,...]\n"
            "sizes accept k/m suffixes (KiB/MiB). %s\n",
            prog, extra ? extra : "");
}

static inline void bench_parse_args(int argc, char **argv, bench_opts *o, const char *extra)
{
    int i;
    memset(o, 0, sizeof *o);
    o->target_ms = 60.0;
    o->min_iters = 3;
    o->max_iters = 20000;
    o->min_size = -1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
        } else if (!strcmp(a, "--target-ms") && v) {
            o->target_ms = atof(v); i++;
        } else if (!strcmp(a, "--min-iters") && v) {
            o->min_iters = atol(v); i++;
        } else if (!strcmp(a, "--max-iters") && v) {
            o->max_iters = atol(v); i++;
        } else if (!strcmp(a, "--max-size") && v) {
            o->max_size = bench_parse_size(v); i++;
        } else if (!strcmp(a, "--min-size") && v) {
            o->min_size = bench_parse_size(v); i++;
        } else if (!strcmp(a, "--only") && v) {
            o->only = v; i++;
        } else if (!strcmp(a, "--sizes") && v) {
            char *copy = (char *)malloc(strlen(v) + 1), *tok, *save = copy;
            strcpy(copy, v);
            for (tok = strtok(copy, ","); tok && o->nsizes < 64; tok = strtok(NULL, ","))
                o->sizes[o->nsizes++] = bench_parse_size(tok);
            free(save);
            i++;
        } else {
            int rank;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            if (rank == 0) bench_usage(argv[0], extra);
            MPI_Finalize();
            exit(strcmp(a, "--help") && strcmp(a, "-h") ? 1 : 0);
        }
    }
    if (o->quick) {
        o->target_ms = 5.0;
        o->min_iters = 2;
        if (o->max_iters > 50) o->max_iters = 50;
    }
}

/* Is `name` selected by the --only list? */
static inline int bench_selected(const bench_opts *o, const char *name)
{
    const char *p;
    size_t n = strlen(name);
    if (!o->only) return 1;
    for (p = o->only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Build the list of sizes: explicit --sizes, else powers of two in [lo, hi]
 * (0 included when lo == 0). Returns the count. */
static inline int bench_size_list(const bench_opts *o, long lo, long hi, long *out, int cap)
{
    int n = 0;
    long s;
    if (o->nsizes > 0) {
        for (n = 0; n < o->nsizes && n < cap; n++) out[n] = o->sizes[n];
        return n;
    }
    if (o->min_size >= 0) lo = o->min_size;
    if (o->max_size > 0) hi = o->max_size;
    if (lo == 0) {
        out[n++] = 0;
        lo = 1;
    }
    for (s = lo; s <= hi && n < cap; s *= 2) out[n++] = s;
    return n;
}

/* Iterations for a cell, given the measured seconds per iteration. */
static inline long bench_iters_for(const bench_opts *o, double sec_per_iter)
{
    double want;
    long it;
    if (sec_per_iter <= 0.0) sec_per_iter = 1e-7;
    want = (o->target_ms * 1e-3) / sec_per_iter;
    it = (want > (double)o->max_iters) ? o->max_iters : (long)want;
    if (it < o->min_iters) it = o->min_iters;
    return it;
}

/* Deterministic byte pattern: depends on position, a seed and the size. */
static inline unsigned char bench_pat(long i, int seed)
{
    return (unsigned char)((i * 131 + seed * 7 + 1) & 0xff);
}

static inline void *bench_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) bench_die("malloc");
    memset(p, 0, n ? n : 1);
    return p;
}

#endif
