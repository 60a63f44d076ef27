/* dup, idup, split, split_type, create, create_group: sizes, ranks, groups, compare results, names,
 * info, and that every new communicator carries messages between the right processes. */
#include <string.h>

#include "check.h"

static int world_size;

static void test_dup_and_compare(void) {
  MPI_Comm dup;
  int result;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_IDENT);
  MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_compare(dup, MPI_COMM_SELF, &result));
  CHECK(result == (world_size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
  int size, rank;
  MPI_OK(MPI_Comm_size(dup, &size));
  MPI_OK(MPI_Comm_rank(dup, &rank));
  CHECK(size == world_size);
  CHECK(rank == g_world_rank);
  check_comm_carries(dup, 7);

  /* Same members, other order: SIMILAR. */
  MPI_Comm reversed;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, world_size - g_world_rank, &reversed));
  MPI_OK(MPI_Comm_rank(reversed, &rank));
  CHECK(rank == world_size - 1 - g_world_rank);
  MPI_OK(MPI_Comm_compare(reversed, MPI_COMM_WORLD, &result));
  CHECK(result == (world_size == 1 ? MPI_CONGRUENT : MPI_SIMILAR));
  check_comm_carries(reversed, 0);

  MPI_Comm dup2;
  MPI_OK(MPI_Comm_dup(dup, &dup2));
  MPI_OK(MPI_Comm_compare(dup, dup2, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_free(&dup2));
  CHECK(dup2 == MPI_COMM_NULL);
  MPI_OK(MPI_Comm_free(&reversed));
  MPI_OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
}

static void test_queries(void) {
  int flag = -1, status = -1;
  MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0);
  MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED);

  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);
  MPI_OK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
  CHECK(strcmp(name, "MPI_COMM_SELF") == 0 && len == 13);

  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == 0 && name[0] == '\0');
  MPI_OK(MPI_Comm_set_name(dup, "my communicator"));
  MPI_OK(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, "my communicator") == 0 && len == 15);
  char long_name[300];
  memset(long_name, 'x', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  MPI_OK(MPI_Comm_set_name(dup, long_name));
  MPI_OK(MPI_Comm_get_name(dup, name, &len));
  CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len);

  MPI_Group group;
  int gsize, grank;
  MPI_OK(MPI_Comm_group(dup, &group));
  MPI_OK(MPI_Group_size(group, &gsize));
  MPI_OK(MPI_Group_rank(group, &grank));
  CHECK(gsize == world_size && grank == g_world_rank);
  MPI_OK(MPI_Group_free(&group));
  CHECK(group == MPI_GROUP_NULL);

  /* Info: set, get back, copied by dup, replaced by dup_with_info. Hints fabmpi does not know are
   * ignored, so not returned (MPI-3.1 6.4.4 "hints actually used"; MPICH's comm/comm_info); MPI-4.0's
   * assertions are kept with a boolean value. */
  MPI_Info info, got;
  char value[64];
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "fabmpi_test_hint", "42"));
  MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
  MPI_OK(MPI_Info_set(info, "mpi_assert_exact_length", "maybe")); /* not a boolean: ignored */
  MPI_OK(MPI_Comm_set_info(dup, info));
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Comm_get_info(dup, &got));
  MPI_OK(MPI_Info_get(got, "fabmpi_test_hint", sizeof value - 1, value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Info_get(got, "mpi_assert_exact_length", sizeof value - 1, value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Info_get(got, "mpi_assert_no_any_source", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "true") == 0);
  MPI_OK(MPI_Info_free(&got));
  MPI_Comm dup2, dup3;
  MPI_OK(MPI_Comm_dup(dup, &dup2));
  MPI_OK(MPI_Comm_get_info(dup2, &got));
  MPI_OK(MPI_Info_get(got, "mpi_assert_no_any_source", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "true") == 0);
  MPI_OK(MPI_Info_free(&got));
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "mpi_assert_allow_overtaking", "false"));
  MPI_OK(MPI_Info_set(info, "other", "yes"));
  MPI_OK(MPI_Comm_dup_with_info(dup, info, &dup3));
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Comm_get_info(dup3, &got));
  MPI_OK(MPI_Info_get(got, "mpi_assert_no_any_source", sizeof value - 1, value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Info_get(got, "other", sizeof value - 1, value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Info_get(got, "mpi_assert_allow_overtaking", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "false") == 0);
  MPI_OK(MPI_Info_free(&got));
  check_comm_carries(dup3, 3);
  MPI_OK(MPI_Comm_free(&dup3));
  MPI_OK(MPI_Comm_free(&dup2));
  MPI_OK(MPI_Comm_free(&dup));
}

static void test_split(void) {
  /* Parity colors, keys reversing the order. */
  MPI_Comm half;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, -g_world_rank, &half));
  int size, rank;
  MPI_OK(MPI_Comm_size(half, &size));
  MPI_OK(MPI_Comm_rank(half, &rank));
  const int parity = g_world_rank % 2;
  const int expected_size = (world_size - parity + 1) / 2;
  CHECK(size == expected_size);
  int members[64];
  world_ranks_of(half, members);
  for (int i = 0; i < size; ++i) {
    /* Highest world rank of this parity first. */
    const int highest = (world_size - 1) - ((world_size - 1 - parity) % 2);
    CHECK(members[i] == highest - 2 * i);
  }
  check_comm_carries(half, 1);

  /* Split of a split; equal keys keep the old order. */
  MPI_Comm quarter;
  MPI_OK(MPI_Comm_split(half, rank % 2, 0, &quarter));
  int qsize, qrank;
  MPI_OK(MPI_Comm_size(quarter, &qsize));
  MPI_OK(MPI_Comm_rank(quarter, &qrank));
  CHECK(qsize == (size - rank % 2 + 1) / 2);
  CHECK(qrank == rank / 2);
  check_comm_carries(quarter, 2);
  MPI_OK(MPI_Comm_free(&quarter));
  MPI_OK(MPI_Comm_free(&half));

  /* MPI_UNDEFINED gets MPI_COMM_NULL; the others still form a communicator. */
  MPI_Comm most;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g_world_rank == 0 ? MPI_UNDEFINED : 5, 0, &most));
  if (g_world_rank == 0) {
    CHECK(most == MPI_COMM_NULL);
  } else {
    MPI_OK(MPI_Comm_size(most, &size));
    MPI_OK(MPI_Comm_rank(most, &rank));
    CHECK(size == world_size - 1 && rank == g_world_rank - 1);
    check_comm_carries(most, 4);
    MPI_OK(MPI_Comm_free(&most));
  }

  /* Everyone undefined. */
  MPI_Comm none;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &none));
  CHECK(none == MPI_COMM_NULL);

  /* One process per communicator. */
  MPI_Comm alone;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g_world_rank, 0, &alone));
  int result;
  MPI_OK(MPI_Comm_compare(alone, MPI_COMM_SELF, &result));
  CHECK(result == MPI_CONGRUENT);
  check_comm_carries(alone, 5);
  MPI_OK(MPI_Comm_free(&alone));
}

static void test_split_type(void) {
  /* mpirun places every rank of these tests on one node. */
  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_size - g_world_rank, MPI_INFO_NULL,
                             &node));
  int size, rank;
  MPI_OK(MPI_Comm_size(node, &size));
  MPI_OK(MPI_Comm_rank(node, &rank));
  CHECK(size == world_size);
  CHECK(rank == world_size - 1 - g_world_rank);
  check_comm_carries(node, 6);
  MPI_OK(MPI_Comm_free(&node));

  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, g_world_rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                             MPI_INFO_NULL, &node));
  if (g_world_rank % 2) {
    CHECK(node == MPI_COMM_NULL);
  } else {
    MPI_OK(MPI_Comm_size(node, &size));
    CHECK(size == (world_size + 1) / 2);
    check_comm_carries(node, 6);
    MPI_OK(MPI_Comm_free(&node));
  }
}

static void test_create(void) {
  MPI_Group world_group, evens;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  int range[1][3] = {{0, world_size - 1, 2}};
  MPI_OK(MPI_Group_range_incl(world_group, 1, range, &evens));
  MPI_Comm comm;
  MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &comm));
  if (g_world_rank % 2) {
    CHECK(comm == MPI_COMM_NULL);
  } else {
    int size, rank, result;
    MPI_OK(MPI_Comm_size(comm, &size));
    MPI_OK(MPI_Comm_rank(comm, &rank));
    CHECK(size == (world_size + 1) / 2 && rank == g_world_rank / 2);
    MPI_Group got;
    MPI_OK(MPI_Comm_group(comm, &got));
    MPI_OK(MPI_Group_compare(got, evens, &result));
    CHECK(result == MPI_IDENT);
    MPI_OK(MPI_Group_free(&got));
    check_comm_carries(comm, 8);
    MPI_OK(MPI_Comm_free(&comm));
  }

  /* MPI_GROUP_EMPTY: nobody is a member. */
  MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &comm));
  CHECK(comm == MPI_COMM_NULL);

  /* create_group over ranks 1..n-1 in reverse order: rank 0 takes no part at all. */
  if (world_size >= 2) {
    int ranks[64], n = 0;
    for (int r = world_size - 1; r >= 1; --r) ranks[n++] = r;
    MPI_Group tail;
    MPI_OK(MPI_Group_incl(world_group, n, ranks, &tail));
    if (g_world_rank != 0) {
      MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, tail, 99, &comm));
      int size, rank;
      MPI_OK(MPI_Comm_size(comm, &size));
      MPI_OK(MPI_Comm_rank(comm, &rank));
      CHECK(size == world_size - 1 && rank == world_size - 1 - g_world_rank);
      check_comm_carries(comm, 9);
      /* A create_group on the new communicator, over its first half. */
      int half_ranks[64], h = 0;
      for (int r = 0; r < (size + 1) / 2; ++r) half_ranks[h++] = r;
      MPI_Group comm_group, first_half;
      MPI_OK(MPI_Comm_group(comm, &comm_group));
      MPI_OK(MPI_Group_incl(comm_group, h, half_ranks, &first_half));
      if (rank < h) {
        MPI_Comm inner;
        MPI_OK(MPI_Comm_create_group(comm, first_half, 0, &inner));
        int isize;
        MPI_OK(MPI_Comm_size(inner, &isize));
        CHECK(isize == h);
        check_comm_carries(inner, 10);
        MPI_OK(MPI_Comm_free(&inner));
      }
      MPI_OK(MPI_Group_free(&first_half));
      MPI_OK(MPI_Group_free(&comm_group));
      MPI_OK(MPI_Comm_free(&comm));
    }
    MPI_OK(MPI_Group_free(&tail));
  }
  MPI_OK(MPI_Group_free(&evens));
  MPI_OK(MPI_Group_free(&world_group));
}

static void test_idup(void) {
  /* Several nonblocking dups in flight at once, on overlapping communicators. */
  MPI_Comm base, a, b, c;
  MPI_Request reqs[3];
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, g_world_rank % 2, 0, &base));
  MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &a, &reqs[0]));
  MPI_OK(MPI_Comm_idup(base, &b, &reqs[1]));
  MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &c, &reqs[2]));
  MPI_Status statuses[3];
  MPI_OK(MPI_Waitall(3, reqs, statuses));
  int result;
  MPI_OK(MPI_Comm_compare(a, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_compare(b, base, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_compare(a, c, &result));
  CHECK(result == MPI_CONGRUENT);
  check_comm_carries(a, 11);
  check_comm_carries(b, 11);
  check_comm_carries(c, 11);
  MPI_OK(MPI_Comm_free(&a));
  MPI_OK(MPI_Comm_free(&b));
  MPI_OK(MPI_Comm_free(&c));
  MPI_OK(MPI_Comm_free(&base));

  /* An idup pending across a blocking creation that other ranks enter first (MPICH's
   * comm_create_group_idup): even ranks create then idup, odd ranks idup then create. The blocking
   * creation must not wait for the idup's ids. */
  MPI_Group world_group;
  MPI_Comm grouped, dup;
  MPI_Request req;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  if (g_world_rank % 2 == 0) {
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &grouped));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
  } else {
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req));
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &grouped));
  }
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  check_comm_carries(dup, 12);
  check_comm_carries(grouped, 13);
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&grouped));
  MPI_OK(MPI_Group_free(&world_group));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  if (world_size > 64) MPI_Abort(MPI_COMM_WORLD, 2);
  test_dup_and_compare();
  test_queries();
  test_split();
  test_split_type();
  test_create();
  test_idup();
  return finish_test("comm_basic");
}
