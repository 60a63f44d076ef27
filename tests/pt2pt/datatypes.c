/* Non-contiguous sends with every derived datatype constructor, eager and rendezvous counts: received
 * both into the same type (holes must stay untouched) and into contiguous doubles (packed order);
 * checked element by element against the type map written out by hand. */
#include "check.h"

typedef struct {
  const char* name;
  MPI_Datatype type;
  int npos;
  int pos[8];  /* type map in doubles, in order */
  int extent;  /* in doubles */
} Case;

static void run(const Case* c, int rank, int count) {
  const size_t span = (size_t)count * (size_t)c->extent + 16;
  double* a = calloc(span, sizeof(double));
  const size_t packed = (size_t)count * (size_t)c->npos;
  if (rank == 0) {
    for (size_t i = 0; i < span; ++i) a[i] = (double)i + 0.5;
    MPI_OK(MPI_Send(a, count, c->type, 1, 1, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(a, count, c->type, 1, 2, MPI_COMM_WORLD));
    double* p = malloc(packed * sizeof(double));
    for (size_t i = 0; i < packed; ++i) p[i] = -(double)i;
    MPI_OK(MPI_Send(p, (int)packed, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD));
    free(p);
  } else if (rank == 1) {
    /* same type */
    MPI_Status st;
    MPI_OK(MPI_Recv(a, count, c->type, 0, 1, MPI_COMM_WORLD, &st));
    CHECK(status_bytes(&st) == packed * sizeof(double), "%s: %zu bytes", c->name, status_bytes(&st));
    char* hit = calloc(span, 1);
    for (int k = 0; k < count; ++k)
      for (int j = 0; j < c->npos; ++j) {
        const size_t at = (size_t)k * (size_t)c->extent + (size_t)c->pos[j];
        hit[at] = 1;
        CHECK(a[at] == (double)at + 0.5, "%s count %d: element %d.%d (index %zu) = %g", c->name, count, k, j, at, a[at]);
      }
    for (size_t i = 0; i < span; ++i) CHECK(hit[i] || a[i] == 0.0, "%s: hole %zu overwritten", c->name, i);
    free(hit);
    /* into contiguous doubles */
    double* p = malloc(packed * sizeof(double));
    MPI_OK(MPI_Recv(p, (int)packed, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < count; ++k)
      for (int j = 0; j < c->npos; ++j) {
        const size_t at = (size_t)k * (size_t)c->extent + (size_t)c->pos[j];
        CHECK(p[(size_t)k * (size_t)c->npos + (size_t)j] == (double)at + 0.5, "%s: packed %d.%d", c->name, k, j);
      }
    /* contiguous doubles into the type */
    memset(a, 0, span * sizeof(double));
    MPI_OK(MPI_Recv(a, count, c->type, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    for (int k = 0; k < count; ++k)
      for (int j = 0; j < c->npos; ++j) {
        const size_t i = (size_t)k * (size_t)c->npos + (size_t)j;
        CHECK(a[(size_t)k * (size_t)c->extent + (size_t)c->pos[j]] == -(double)i, "%s: unpacked %zu", c->name, i);
      }
    free(p);
  }
  free(a);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Case cases[12];
  int n = 0;
  const MPI_Aint D = sizeof(double);
  MPI_Datatype t;

  MPI_Type_contiguous(3, MPI_DOUBLE, &t);
  cases[n++] = (Case){"contiguous", t, 3, {0, 1, 2}, 3};
  MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
  cases[n++] = (Case){"vector", t, 6, {0, 1, 4, 5, 8, 9}, 10};
  MPI_Type_create_hvector(3, 2, 4 * D, MPI_DOUBLE, &t);
  cases[n++] = (Case){"hvector", t, 6, {0, 1, 4, 5, 8, 9}, 10};
  {
    int bl[2] = {1, 3}, dp[2] = {5, 0};
    MPI_Type_indexed(2, bl, dp, MPI_DOUBLE, &t);
    cases[n++] = (Case){"indexed", t, 4, {5, 0, 1, 2}, 6};
    MPI_Aint hdp[2] = {5 * D, 0};
    MPI_Type_create_hindexed(2, bl, hdp, MPI_DOUBLE, &t);
    cases[n++] = (Case){"hindexed", t, 4, {5, 0, 1, 2}, 6};
  }
  {
    int dp[2] = {4, 0};
    MPI_Type_create_indexed_block(2, 2, dp, MPI_DOUBLE, &t);
    cases[n++] = (Case){"indexed_block", t, 4, {4, 5, 0, 1}, 6};
    MPI_Aint hdp[2] = {4 * D, 0};
    MPI_Type_create_hindexed_block(2, 2, hdp, MPI_DOUBLE, &t);
    cases[n++] = (Case){"hindexed_block", t, 4, {4, 5, 0, 1}, 6};
  }
  {
    int bl[2] = {2, 1};
    MPI_Aint dp[2] = {0, 6 * D};
    MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, dp, ty, &t);
    cases[n++] = (Case){"struct", t, 3, {0, 1, 6}, 7};
  }
  {
    int sizes[2] = {4, 5}, sub[2] = {2, 3}, start[2] = {1, 1};
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    cases[n++] = (Case){"subarray", t, 6, {6, 7, 8, 11, 12, 13}, 20};
  }
  {
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, 8 * D, &t);
    cases[n++] = (Case){"resized", t, 2, {0, 3}, 8};
    MPI_Type_free(&v);
    MPI_Type_vector(2, 2, 3, MPI_DOUBLE, &v);
    MPI_Type_dup(v, &t);
    cases[n++] = (Case){"dup", t, 4, {0, 1, 3, 4}, 5};
    MPI_Type_free(&v);
  }
  for (int i = 0; i < n; ++i) {
    MPI_OK(MPI_Type_commit(&cases[i].type));
    run(&cases[i], rank, 2);     /* eager */
    run(&cases[i], rank, 3000);  /* rendezvous */
    MPI_Type_free(&cases[i].type);
  }
  if (rank == 0) printf("datatypes: %d constructors OK\n", n);
  MPI_Finalize();
  return 0;
}
