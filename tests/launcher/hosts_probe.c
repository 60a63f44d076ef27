/* A rank of tests/launcher/remote_hosts.py: prints one line with where it ran (FAKE_SSH_HOST, set by
 * fake_ssh.sh), the size of its node (MPI_Comm_split_type shared), LOCAL_RANK, and checks an allreduce
 * and a 1 MiB ring exchange (within a node over shared memory, between "hosts" over tcp).
 *   hosts_probe [abort CODE RANK | sleep SECONDS]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kRingBytes = 1 << 20 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc >= 4 && strcmp(argv[1], "abort") == 0 && rank == atoi(argv[3])) MPI_Abort(MPI_COMM_WORLD, atoi(argv[2]));
  if (argc >= 3 && strcmp(argv[1], "sleep") == 0) sleep((unsigned)atoi(argv[2]));
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int node_size;
  MPI_Comm_size(node, &node_size);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char* out = malloc(kRingBytes);
  char* in = malloc(kRingBytes);
  for (int i = 0; i < kRingBytes; ++i) out[i] = (char)(i * 7 + rank);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Sendrecv(out, kRingBytes, MPI_CHAR, next, 0, in, kRingBytes, MPI_CHAR, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  int ring_ok = 1;
  for (int i = 0; i < kRingBytes; ++i) ring_ok &= in[i] == (char)(i * 7 + prev);
  const char* host = getenv("FAKE_SSH_HOST");
  const char* local_rank = getenv("LOCAL_RANK");
  printf("rank %d host %s node_size %d sum %d ring %s local_rank %s\n", rank, host ? host : "-", node_size,
         sum, ring_ok ? "ok" : "BAD", local_rank ? local_rank : "-");
  free(out);
  free(in);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
