/* Error classes under MPI_ERRORS_RETURN: invalid communicators and groups, bad ranks and ranges,
 * bad colors and split types, freeing predefined communicators. Every check is local (no rank
 * returns early from a collective the others complete). */
#include "check.h"

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  int size;
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  MPI_Comm out = MPI_COMM_WORLD;
  CHECK(error_class(MPI_Comm_dup(MPI_COMM_NULL, &out)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_dup(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Comm_split(MPI_COMM_NULL, 0, 0, &out)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &out)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &out)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &out)) == MPI_ERR_GROUP);
  CHECK(error_class(MPI_Comm_create_group(MPI_COMM_WORLD, MPI_GROUP_EMPTY, -1, &out)) == MPI_ERR_TAG);
  CHECK(error_class(MPI_Comm_dup_with_info(MPI_COMM_WORLD, (MPI_Info)0x12345, &out)) == MPI_ERR_INFO);
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF, null = MPI_COMM_NULL;
  CHECK(error_class(MPI_Comm_free(&world)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_free(&self)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_free(&null)) == MPI_ERR_COMM);
  CHECK(world == MPI_COMM_WORLD);
  int result;
  CHECK(error_class(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_NULL, &result)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_set_name(MPI_COMM_WORLD, NULL)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Comm_test_inter(MPI_COMM_NULL, &result)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Topo_test(MPI_COMM_NULL, &result)) == MPI_ERR_COMM);
  CHECK(error_class(MPI_Comm_set_info(MPI_COMM_WORLD, MPI_INFO_NULL)) == MPI_ERR_INFO);

  /* A group that is not a subset of the communicator: MPI_COMM_SELF's group vs a group with another
   * process in it. */
  MPI_Group world_group, g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  if (size > 1) {
    CHECK(error_class(MPI_Comm_create_group(MPI_COMM_SELF, world_group, 0, &out)) == MPI_ERR_GROUP);
    CHECK(error_class(MPI_Comm_create(MPI_COMM_SELF, world_group, &out)) == MPI_ERR_GROUP);
  }

  /* Group arguments. */
  int dup_ranks[2] = {0, 0};
  int bad_rank[1] = {size};
  CHECK(error_class(MPI_Group_incl(world_group, 2, dup_ranks, &g)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Group_incl(world_group, 1, bad_rank, &g)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Group_excl(world_group, 1, bad_rank, &g)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Group_incl(world_group, -1, dup_ranks, &g)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Group_incl(MPI_GROUP_NULL, 0, dup_ranks, &g)) == MPI_ERR_GROUP);
  int zero_stride[1][3] = {{0, 0, 0}};
  int past_end[1][3] = {{0, size, 1}};
  CHECK(error_class(MPI_Group_range_incl(world_group, 1, zero_stride, &g)) == MPI_ERR_ARG);
  CHECK(error_class(MPI_Group_range_incl(world_group, 1, past_end, &g)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Group_range_excl(world_group, 1, past_end, &g)) == MPI_ERR_RANK);
  int ranks1[2] = {0, size}, ranks2[2];
  CHECK(error_class(MPI_Group_translate_ranks(world_group, 2, ranks1, world_group, ranks2)) == MPI_ERR_RANK);
  CHECK(error_class(MPI_Group_compare(world_group, MPI_GROUP_NULL, &result)) == MPI_ERR_GROUP);
  MPI_Group null_group = MPI_GROUP_NULL;
  CHECK(error_class(MPI_Group_free(&null_group)) == MPI_ERR_GROUP);

  /* The group calls that work: translate with MPI_PROC_NULL, empty results are MPI_GROUP_EMPTY. */
  int in[3] = {MPI_PROC_NULL, 0, size - 1}, mapped[3];
  MPI_Group self_group;
  MPI_OK(MPI_Comm_group(MPI_COMM_SELF, &self_group));
  MPI_OK(MPI_Group_translate_ranks(world_group, 3, in, self_group, mapped));
  CHECK(mapped[0] == MPI_PROC_NULL);
  CHECK(mapped[1] == (g_world_rank == 0 ? 0 : MPI_UNDEFINED));
  CHECK(mapped[2] == (g_world_rank == size - 1 ? 0 : MPI_UNDEFINED));
  MPI_OK(MPI_Group_difference(self_group, world_group, &g));
  CHECK(g == MPI_GROUP_EMPTY);
  MPI_OK(MPI_Group_rank(g, &result));
  CHECK(result == MPI_UNDEFINED);
  MPI_OK(MPI_Group_free(&g));
  CHECK(g == MPI_GROUP_NULL);
  MPI_OK(MPI_Group_union(self_group, world_group, &g));
  MPI_OK(MPI_Group_compare(g, world_group, &result));
  CHECK(result == (g_world_rank == 0 ? MPI_IDENT : MPI_SIMILAR));
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_intersection(world_group, self_group, &g));
  MPI_OK(MPI_Group_compare(g, self_group, &result));
  CHECK(result == MPI_IDENT);
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_free(&self_group));
  MPI_OK(MPI_Group_free(&world_group));

  /* Errors are reported through the communicator's handler: with MPI_ERRORS_RETURN on WORLD only, a
   * dup of WORLD inherits it. */
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK(error_class(MPI_Comm_split(dup, -7, 0, &out)) == MPI_ERR_ARG);
  MPI_OK(MPI_Comm_free(&dup));
  return finish_test("comm_errors");
}
