/* copy_args.h: the command line the two no-MPI copy references share (memcpy_bw.c, xcopy_bw.c), so
 * that their sizes and timing always match the MPI bandwidth test's:
 *   [--quick] [--target-ms MS] [--sizes B,B,...]   (sizes accept k/m suffixes: KiB/MiB)
 * Default sizes 4 KiB .. 16 MiB in powers of two (--quick: 4 KiB .. 64 KiB, 5 ms per size). Plain C99. */
#ifndef FABMPI_BENCH_COPY_ARGS_H
#define FABMPI_BENCH_COPY_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COPY_ARGS_MAX_SIZES 64

typedef struct {
    long sizes[COPY_ARGS_MAX_SIZES];
    int n;
    double target_s; /* seconds each size runs, after calibration */
    long max_size;
} copy_args;

/* Returns 0, or 1 after printing the usage line (unknown argument). */
static int parse_copy_args(int argc, char **argv, copy_args *a)
{
    int i, quick = 0;
    a->n = 0;
    a->target_s = 0.060;
    a->max_size = 0;
    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) {
            quick = 1;
        } else if (!strcmp(argv[i], "--target-ms") && i + 1 < argc) {
            a->target_s = atof(argv[++i]) * 1e-3;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            char *tok;
            for (tok = strtok(argv[++i], ","); tok && a->n < COPY_ARGS_MAX_SIZES; tok = strtok(NULL, ",")) {
                char *end;
                double v = strtod(tok, &end);
                if (*end == 'k' || *end == 'K') v *= 1024;
                if (*end == 'm' || *end == 'M') v *= 1024 * 1024;
                a->sizes[a->n++] = (long)v;
            }
        } else {
            fprintf(stderr, "usage: %s [--quick] [--target-ms MS] [--sizes B,B,...]\n", argv[0]);
            return 1;
        }
    }
    if (quick) a->target_s = 0.005;
    if (a->n == 0) {
        long s, hi = quick ? 65536 : 16L * 1024 * 1024;
        for (s = 4096; s <= hi; s *= 2) a->sizes[a->n++] = s;
    }
    for (i = 0; i < a->n; i++)
        if (a->sizes[i] > a->max_size) a->max_size = a->sizes[i];
    return 0;
}

#endif
