/* MPIX_Init_with_store: proposed fabmpi extension (see docs/torch.md).
 *
 * Lets a process initialise MPI without a PMI server, exchanging its business cards through a key-value
 * store the caller already has (torch's c10d::Store under torchrun). torch_fabmpi looks the symbol up with
 * dlsym() at run time, so this header only declares what it expects; fabmpi's mpi.h will carry the same
 * declarations once the library implements them. */
#ifndef MPIX_STORE_BOOTSTRAP_H
#define MPIX_STORE_BOOTSTRAP_H

#include <stddef.h>

/* Outside extern "C": MPICH's mpi.h pulls in its C++ bindings (mpicxx.h), which must keep C++ linkage. */
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* fabmpi's mpi.h declares the extension itself; this copy serves MPIs without it (dlsym finds nothing). */
#ifndef MPIX_STORE_BOOTSTRAP_VERSION
#define MPIX_STORE_BOOTSTRAP_VERSION 1

typedef struct MPIX_Store_bootstrap {
    int version;    /* MPIX_STORE_BOOTSTRAP_VERSION */
    int rank;       /* this process's rank in MPI_COMM_WORLD, 0 <= rank < size */
    int size;       /* size of MPI_COMM_WORLD */
    int local_rank; /* rank among the processes on this node, -1 if unknown */
    int local_size; /* processes on this node, -1 if unknown */
    int node_id;    /* index of this node as the launcher numbers them, -1 if unknown */
    int timeout_ms; /* how long get() and fence() may block; <= 0 means no limit */
    void *ctx;      /* passed unchanged to every callback */
    /* Store value[0..len) under key (NUL-terminated, at most 255 bytes). 0 on success. */
    int (*put)(void *ctx, const char *key, const void *value, size_t len);
    /* Block until key exists (or timeout), then copy min(len, capacity) bytes to value and set *len to the
     * value's full length; the caller retries with a larger buffer when *len > capacity. 0 on success. */
    int (*get)(void *ctx, const char *key, void *value, size_t capacity, size_t *len);
    /* Return once every rank has called fence() the same number of times; every put() made before a rank's
     * fence is then visible to get() everywhere. May be NULL: the library then builds it from put/get. */
    int (*fence)(void *ctx);
} MPIX_Store_bootstrap;

/* Like MPI_Init_thread, with the store standing in for PMI. The callbacks must stay valid until MPI_Finalize. */
int MPIX_Init_with_store(int *argc, char ***argv, int required, int *provided,
                         const MPIX_Store_bootstrap *bootstrap);
#endif
typedef int (*MPIX_Init_with_store_fn)(int *, char ***, int, int *, const MPIX_Store_bootstrap *);

#ifdef __cplusplus
}
#endif
#endif
