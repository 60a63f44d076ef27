/* MPI-4.0 hardware splits (7.4.2), in checks that hold on any machine and any binding:
 *   MPI_COMM_TYPE_HW_GUIDED with "mpi_shared_memory" and "machine" gives the MPI_COMM_TYPE_SHARED group;
 *   no info, no "mpi_hw_resource_type" key, or a type nobody knows gives MPI_COMM_NULL;
 *   every hwloc type ("package", "numanode", "l3cache", "l2cache", "l1cache", "core", "pu", and the
 *   spellings "socket" / "hwthread") gives MPI_COMM_NULL or a subgroup of the node's whose members all
 *   got the same communicator, which says its type in its info; finer types never give larger groups;
 *   MPI_COMM_TYPE_HW_UNGUIDED gives MPI_COMM_NULL everywhere or a strict subset of the parent, with the
 *   chosen type in the new communicator's info and in the caller's info object.
 * Run unbound and with --bind-to core (then "core" gives one rank per communicator, unless ranks share
 * cores). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1, size = 0, failures = 0;

#define CHECK(cond)                                                                        \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      fprintf(stderr, "split_hw: rank %d: %s:%d: check failed: %s\n", rank, __FILE__, __LINE__, #cond); \
      ++failures;                                                                          \
    }                                                                                      \
  } while (0)

/* MPI_IDENT / MPI_CONGRUENT / ... of the groups of a and b (b may be MPI_COMM_NULL). */
static int same_group(MPI_Comm a, MPI_Comm b) {
  if (b == MPI_COMM_NULL) return 0;
  MPI_Group ga, gb;
  int result;
  MPI_Comm_group(a, &ga);
  MPI_Comm_group(b, &gb);
  MPI_Group_compare(ga, gb, &result);
  MPI_Group_free(&ga);
  MPI_Group_free(&gb);
  return result == MPI_IDENT;
}

static MPI_Comm guided(const char* key, const char* value) {
  MPI_Info info = MPI_INFO_NULL;
  if (key) {
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
  }
  MPI_Comm c;
  int rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &c);
  CHECK(rc == MPI_SUCCESS);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  return c;
}

static int info_says(MPI_Comm c, const char* value) {
  MPI_Info info;
  char got[MPI_MAX_INFO_VAL + 1] = "";
  int flag = 0;
  MPI_Comm_get_info(c, &info);
  MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, got, &flag);
  MPI_Info_free(&info);
  return flag && strcmp(got, value) == 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_size;
  MPI_Comm_size(node, &node_size);

  const char* whole[] = {"mpi_shared_memory", "machine", "MPI_SHARED_MEMORY", "Machine"};
  for (int i = 0; i < 4; ++i) {
    MPI_Comm c = guided("mpi_hw_resource_type", whole[i]);
    CHECK(same_group(node, c));
    if (c != MPI_COMM_NULL) {
      CHECK(info_says(c, whole[i]));
      MPI_Comm_free(&c);
    }
  }

  MPI_Comm none = guided(NULL, NULL);
  CHECK(none == MPI_COMM_NULL);
  none = guided("shmem_topo", "core");
  CHECK(none == MPI_COMM_NULL);
  none = guided("mpi_hw_resource_type", "quantum_foam");
  CHECK(none == MPI_COMM_NULL);

  /* Coarse to fine: a finer type never gives a larger group. */
  const char* types[] = {"package", "socket", "numanode", "l3cache", "l2cache", "l1cache", "core", "hwthread", "pu"};
  int previous = node_size;
  for (int i = 0; i < 9; ++i) {
    MPI_Comm c = guided("mpi_hw_resource_type", types[i]);
    int my_size = 0;
    if (c != MPI_COMM_NULL) {
      MPI_Comm_size(c, &my_size);
      CHECK(my_size <= node_size);
      CHECK(info_says(c, types[i]));
      /* Every member got this same communicator: the sum of 1s over it is its size. */
      int one = 1, members = 0;
      MPI_Allreduce(&one, &members, 1, MPI_INT, MPI_SUM, c);
      CHECK(members == my_size);
      MPI_Comm_free(&c);
    }
    /* "package" and "socket", "pu" and "hwthread" are the same type. */
    if (strcmp(types[i], "numanode") != 0 && my_size > 0 && strcmp(types[i], "socket") != 0 &&
        strcmp(types[i], "pu") != 0)
      CHECK(my_size <= previous || previous == 0);
    if (my_size > 0) previous = my_size;
  }
  const char* bound = getenv("SPLIT_HW_EXPECT_CORE_BOUND");
  if (bound && strcmp(bound, "1") == 0) {
    /* Bound one rank per core: each core communicator holds exactly this rank. */
    MPI_Comm c = guided("mpi_hw_resource_type", "core");
    int s = -1;
    if (c != MPI_COMM_NULL) MPI_Comm_size(c, &s), MPI_Comm_free(&c);
    CHECK(s == 1);
  }

  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Comm un;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, info, &un);
  int got_comm = un != MPI_COMM_NULL, all_got = 0, any_got = 0;
  MPI_Allreduce(&got_comm, &all_got, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Allreduce(&got_comm, &any_got, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  CHECK(all_got == any_got);  /* everyone or no one */
  if (un != MPI_COMM_NULL) {
    int s;
    MPI_Comm_size(un, &s);
    CHECK(s < size);
    char type[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Info_get(info, "mpi_hw_resource_type", MPI_MAX_INFO_VAL, type, &flag);
    CHECK(flag && type[0] != '\0');
    if (flag) CHECK(info_says(un, type));
    MPI_Comm_free(&un);
  }
  MPI_Info_free(&info);
  MPI_Comm_free(&node);

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("split_hw: OK (%d ranks)\n", size);
  MPI_Finalize();
  return total ? 1 : 0;
}
