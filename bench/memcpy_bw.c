/* memcpy_bw: single-core memcpy bandwidth, the reference for the target
 * "streaming MPI bandwidth >= 0.8x memcpy". Plain C99, no MPI.
 *
 *   metric=memcpy_MBps size=<bytes> value=<MB/s, MB = 1e6 bytes>
 *
 * Sizes 4 KiB .. 16 MiB (powers of two, as bw_MBps), or --sizes a,b,...
 * The same source/destination pair is copied repeatedly, so small sizes are
 * cache-resident, as they are for the MPI bandwidth test. Each size runs for
 * about --target-ms (default 60) after a calibration; --quick: 4 KiB..64 KiB,
 * 5 ms. The copy is checked (first, middle and last byte) after timing.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_args.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Keeps the compiler from treating the copies as dead. */
volatile unsigned char sink;

static double copy_loop(unsigned char *d, const unsigned char *s, size_t n, long iters)
{
    long i;
    double t0 = now_s();
    for (i = 0; i < iters; i++) {
        memcpy(d, s, n);
        sink = d[(size_t)i % n];
    }
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    copy_args args;
    long *sizes = args.sizes, maxsz;
    int n, i;
    double target;
    unsigned char *src, *dst;

    if (parse_copy_args(argc, argv, &args) != 0) return 1;
    n = args.n;
    target = args.target_s;
    maxsz = args.max_size;
    src = (unsigned char *)malloc((size_t)maxsz);
    dst = (unsigned char *)malloc((size_t)maxsz);
    if (!src || !dst) {
        fprintf(stderr, "bench: FAILED: malloc\n");
        return 2;
    }
    for (i = 0; i < maxsz; i++) src[i] = (unsigned char)(i * 131 + 1);
    memset(dst, 0, (size_t)maxsz);

    for (i = 0; i < n; i++) {
        size_t sz = (size_t)sizes[i];
        long calib = 3, iters;
        double t;
        if (sz == 0) continue;
        copy_loop(dst, src, sz, 1);
        t = copy_loop(dst, src, sz, calib) / (double)calib;
        iters = (long)(target / (t > 0 ? t : 1e-9));
        if (iters < 3) iters = 3;
        if (iters > 1000000) iters = 1000000;
        t = copy_loop(dst, src, sz, iters);
        if (dst[0] != src[0] || dst[sz / 2] != src[sz / 2] || dst[sz - 1] != src[sz - 1]) {
            fprintf(stderr, "bench: FAILED: memcpy check at size %zu\n", sz);
            return 2;
        }
        printf("metric=memcpy_MBps size=%zu value=%.1f iters=%ld\n", sz, (double)sz * (double)iters / t / 1e6, iters);
        fflush(stdout);
    }
    free(src);
    free(dst);
    return 0;
}
