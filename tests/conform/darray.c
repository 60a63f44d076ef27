/* MPI_Type_create_darray against hand-computed layouts (and MPI_Type_match_size): the global array holds its own linear index,
 * so packing one darray element yields the indices the process owns, in type-map order. */
#include <string.h>

#include "../comm/check.h"

static int g_global[64];

static void expect_darray(const char* what, int size, int rank, int ndims, const int* gsizes, const int* distribs,
                          const int* dargs, const int* psizes, int order, const int* expected, int n) {
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, MPI_INT, &t));
  MPI_OK(MPI_Type_commit(&t));
  int type_size;
  MPI_Aint lb, extent;
  MPI_OK(MPI_Type_size(t, &type_size));
  MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
  int total = 1;
  for (int d = 0; d < ndims; ++d) total *= gsizes[d];
  CHECK(lb == 0);
  CHECK(extent == (MPI_Aint)total * (MPI_Aint)sizeof(int));
  CHECK(type_size == n * (int)sizeof(int));
  int packed[64];
  int position = 0;
  memset(packed, 0xff, sizeof packed);
  MPI_OK(MPI_Pack(g_global, 1, t, packed, sizeof packed, &position, MPI_COMM_SELF));
  CHECK(position == n * (int)sizeof(int));
  int same = memcmp(packed, expected, sizeof(int) * (size_t)n) == 0;
  if (!same) {
    fprintf(stderr, "%s rank %d: got", what, rank);
    for (int i = 0; i < position / (int)sizeof(int); ++i) fprintf(stderr, " %d", packed[i]);
    fprintf(stderr, "\n");
  }
  CHECK(same);
  /* Unpacking scatters back to the same places. */
  int scattered[64];
  memset(scattered, 0xff, sizeof scattered);
  position = 0;
  MPI_OK(MPI_Unpack(packed, sizeof packed, &position, scattered, 1, t, MPI_COMM_SELF));
  for (int i = 0; i < n; ++i) CHECK(scattered[expected[i]] == expected[i]);
  int ni, na, nt, combiner;
  MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nt, &combiner));
  CHECK(combiner == MPI_COMBINER_DARRAY);
  CHECK(ni == 4 * ndims + 4 && na == 0 && nt == 1);
  MPI_OK(MPI_Type_free(&t));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  for (int i = 0; i < 64; ++i) g_global[i] = i;
  const int dflt = MPI_DISTRIBUTE_DFLT_DARG;

  { /* 1-d block over 3 processes: blocks of ceil(10/3) = 4. */
    int g[1] = {10}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {dflt}, p[1] = {3};
    const int e0[] = {0, 1, 2, 3}, e1[] = {4, 5, 6, 7}, e2[] = {8, 9};
    expect_darray("block", 3, 0, 1, g, dist, darg, p, MPI_ORDER_C, e0, 4);
    expect_darray("block", 3, 1, 1, g, dist, darg, p, MPI_ORDER_C, e1, 4);
    expect_darray("block", 3, 2, 1, g, dist, darg, p, MPI_ORDER_C, e2, 2);
    int big[1] = {5}; /* block of 5: the last process gets nothing */
    const int f0[] = {0, 1, 2, 3, 4}, f1[] = {5, 6, 7, 8, 9};
    expect_darray("block(5)", 3, 0, 1, g, dist, big, p, MPI_ORDER_C, f0, 5);
    expect_darray("block(5)", 3, 1, 1, g, dist, big, p, MPI_ORDER_C, f1, 5);
    expect_darray("block(5)", 3, 2, 1, g, dist, big, p, MPI_ORDER_C, f1, 0);
  }
  { /* 1-d cyclic(2) over 3 processes. */
    int g[1] = {10}, dist[1] = {MPI_DISTRIBUTE_CYCLIC}, darg[1] = {2}, p[1] = {3};
    const int e0[] = {0, 1, 6, 7}, e1[] = {2, 3, 8, 9}, e2[] = {4, 5};
    expect_darray("cyclic(2)", 3, 0, 1, g, dist, darg, p, MPI_ORDER_C, e0, 4);
    expect_darray("cyclic(2)", 3, 1, 1, g, dist, darg, p, MPI_ORDER_C, e1, 4);
    expect_darray("cyclic(2)", 3, 2, 1, g, dist, darg, p, MPI_ORDER_C, e2, 2);
    int g11[1] = {11}; /* a partial last block */
    const int h1[] = {2, 3, 8, 9}, h2[] = {4, 5, 10};
    expect_darray("cyclic(2) of 11", 3, 1, 1, g11, dist, darg, p, MPI_ORDER_C, h1, 4);
    expect_darray("cyclic(2) of 11", 3, 2, 1, g11, dist, darg, p, MPI_ORDER_C, h2, 3);
  }
  { /* 2-d C order 4x6, rows block over 2, columns cyclic(1) over 2; process (r/2, r%2). */
    int g[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC}, darg[2] = {dflt, dflt}, p[2] = {2, 2};
    const int e1[] = {1, 3, 5, 7, 9, 11};     /* (0,1): rows 0-1, odd columns */
    const int e2[] = {12, 14, 16, 18, 20, 22}; /* (1,0): rows 2-3, even columns */
    expect_darray("2d C", 4, 1, 2, g, dist, darg, p, MPI_ORDER_C, e1, 6);
    expect_darray("2d C", 4, 2, 2, g, dist, darg, p, MPI_ORDER_C, e2, 6);
  }
  { /* 2-d Fortran order 4x6 (dimension 0 fastest), dimension 0 block over 2, dimension 1 not distributed. */
    int g[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE}, darg[2] = {dflt, dflt}, p[2] = {2, 1};
    int e1[12];
    for (int j = 0, k = 0; j < 6; ++j)
      for (int i = 2; i < 4; ++i) e1[k++] = i + 4 * j;
    expect_darray("2d Fortran", 2, 1, 2, g, dist, darg, p, MPI_ORDER_FORTRAN, e1, 12);
  }
  { /* 3-d C order 2x3x4, cyclic over 2 in the middle dimension only. */
    int g[3] = {2, 3, 4}, dist[3] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};
    int darg[3] = {dflt, dflt, dflt}, p[3] = {1, 2, 1};
    const int e1[] = {4, 5, 6, 7, 16, 17, 18, 19}; /* middle index 1 */
    expect_darray("3d C", 2, 1, 3, g, dist, darg, p, MPI_ORDER_C, e1, 8);
  }
  { /* MPI_Type_match_size: the C type of each size. */
    MPI_Datatype t;
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t));
    CHECK(t == MPI_DOUBLE);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 2, &t));
    CHECK(t == MPI_INT16_T);
    MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 8, &t));
    CHECK(t == MPI_C_FLOAT_COMPLEX);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_match_size(99, 4, &t) == MPI_ERR_ARG);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  }
  { /* Errors, under MPI_ERRORS_RETURN. */
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int g[1] = {10}, dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {dflt}, p[1] = {3};
    MPI_Datatype t;
    CHECK(MPI_Type_create_darray(4, 0, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);
    CHECK(MPI_Type_create_darray(3, 3, 1, g, dist, darg, p, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_RANK);
    int small[1] = {2};
    CHECK(MPI_Type_create_darray(3, 0, 1, g, dist, small, p, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);
    int none[1] = {MPI_DISTRIBUTE_NONE};
    CHECK(MPI_Type_create_darray(3, 0, 1, g, none, darg, p, MPI_ORDER_C, MPI_INT, &t) == MPI_ERR_ARG);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  }
  return finish_test("darray");
}
