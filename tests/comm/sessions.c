/* MPI-4.0 sessions (11.3): a session before MPI_Init (MPI_Initialized stays false), its process sets
 * and their info, groups from them, MPI_Comm_create_from_group (used for an allreduce and compared with
 * MPI_COMM_WORLD), MPI_Intercomm_create_from_groups between the even and odd ranks, session error
 * handlers (MPI_ERRORS_RETURN, a user handler made before initialization and one through
 * MPI_Session_call_errhandler), then MPI_Init and
 * MPI_Finalize while the session is open: the session keeps working until its MPI_Session_finalize.
 * With the argument "only" the program never calls MPI_Init (a sessions-only process must still leave
 * the job cleanly). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define CHECK(cond)                                                                  \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      fprintf(stderr, "sessions: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                  \
    }                                                                                \
  } while (0)

static int handler_calls = 0, handler_code = 0;
static void session_handler(MPI_Session* session, int* code, ...) {
  (void)session;
  ++handler_calls;
  handler_code = *code;
}

static void use_session(MPI_Session s) {
  int n = 0, len = 0, flag = 0;
  char name[MPI_MAX_PSET_NAME_LEN], value[64];
  MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n);
  CHECK(n >= 2);
  int found_world = 0, found_self = 0;
  for (int i = 0; i < n; ++i) {
    len = 0;
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, NULL);
    CHECK(len > 1 && len <= MPI_MAX_PSET_NAME_LEN);
    MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name);
    CHECK((int)strlen(name) == len - 1);
    found_world |= strcmp(name, "mpi://WORLD") == 0;
    found_self |= strcmp(name, "mpi://SELF") == 0;
  }
  CHECK(found_world && found_self);
  MPI_Info info;
  MPI_Session_get_pset_info(s, "mpi://SELF", &info);
  MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "1") == 0);
  MPI_Info_free(&info);

  MPI_Group world_group, self_group;
  MPI_Group_from_session_pset(s, "mpi://WORLD", &world_group);
  MPI_Group_from_session_pset(s, "mpi://SELF", &self_group);
  int size, rank, self_size;
  MPI_Group_size(world_group, &size);
  MPI_Group_rank(world_group, &rank);
  MPI_Group_size(self_group, &self_size);
  CHECK(self_size == 1);
  MPI_Session_get_pset_info(s, "mpi://WORLD", &info);
  MPI_Info_get(info, "mpi_size", sizeof value - 1, value, &flag);
  char expect[16];
  snprintf(expect, sizeof expect, "%d", size);
  CHECK(flag && strcmp(value, expect) == 0);
  MPI_Info_free(&info);

  MPI_Comm comm;
  MPI_Comm_create_from_group(world_group, "org.fabmpi.test.sessions", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm);
  int crank, csize, sum = 0;
  MPI_Comm_rank(comm, &crank);
  MPI_Comm_size(comm, &csize);
  CHECK(crank == rank && csize == size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm);
  CHECK(sum == size * (size - 1) / 2);
  MPI_Errhandler eh;
  MPI_Comm_get_errhandler(comm, &eh);
  CHECK(eh == MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);

  MPI_Comm self_comm;
  MPI_Comm_create_from_group(self_group, "org.fabmpi.test.self", MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &self_comm);
  MPI_Comm_size(self_comm, &csize);
  CHECK(csize == 1);
  MPI_Comm_free(&self_comm);

  if (size >= 2) {
    /* Even and odd ranks, as two groups and one intercommunicator. */
    int evens[64], odds[64], ne = 0, no = 0;
    for (int r = 0; r < size && r < 128; ++r) {
      if (r % 2 == 0) evens[ne++] = r;
      else odds[no++] = r;
    }
    MPI_Group even_group, odd_group;
    MPI_Group_incl(world_group, ne, evens, &even_group);
    MPI_Group_incl(world_group, no, odds, &odd_group);
    const int mine_even = rank % 2 == 0;
    MPI_Comm inter;
    MPI_Intercomm_create_from_groups(mine_even ? even_group : odd_group, 0, mine_even ? odd_group : even_group, 0,
                                     "org.fabmpi.test.inter", MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &inter);
    int is_inter = 0, remote = 0;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_remote_size(inter, &remote);
    CHECK(is_inter && remote == (mine_even ? no : ne));
    int v = rank, total = 0;
    MPI_Allreduce(&v, &total, 1, MPI_INT, MPI_SUM, inter); /* the sum of the other group's ranks */
    int expect_total = 0;
    for (int r = 0; r < size; ++r)
      if ((r % 2 == 0) != mine_even) expect_total += r;
    CHECK(total == expect_total);
    MPI_Comm_free(&inter);
    MPI_Group_free(&even_group);
    MPI_Group_free(&odd_group);
  }
  MPI_Comm_free(&comm);
  MPI_Group_free(&world_group);
  MPI_Group_free(&self_group);

  /* Errors: under MPI_ERRORS_RETURN an unknown process set is MPI_ERR_ARG; a user handler sees the code. */
  MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN);
  MPI_Group g;
  int rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g), cls = 0;
  MPI_Error_class(rc, &cls);
  CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_ARG);
  MPI_Errhandler user;
  handler_calls = 0;
  MPI_Session_create_errhandler(session_handler, &user);
  MPI_Session_set_errhandler(s, user);
  MPI_Session_call_errhandler(s, MPI_ERR_OTHER);
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER);
  MPI_Errhandler got;
  MPI_Session_get_errhandler(s, &got);
  CHECK(got == user);
  MPI_Errhandler_free(&got);
  MPI_Errhandler_free(&user);
}

int main(int argc, char** argv) {
  const int only = argc > 1 && strcmp(argv[1], "only") == 0;
  int flag = 1;
  MPI_Session s;
  MPI_Info info;
  MPI_Errhandler early; /* MPI-4.0 11.2.1: session error handlers may be made before any initialization */
  MPI_Session_create_errhandler(session_handler, &early);
  MPI_Info_create(&info);
  /* The level asked for decides the level the library starts with (this is the first initialization). */
  MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
  MPI_Session_init(info, early, &s);
  MPI_Info_free(&info);
  handler_calls = 0;
  MPI_Session_call_errhandler(s, MPI_ERR_ARG);
  CHECK(handler_calls == 1 && handler_code == MPI_ERR_ARG);
  MPI_Session_set_errhandler(s, MPI_ERRORS_ARE_FATAL);
  MPI_Errhandler_free(&early);
  MPI_Initialized(&flag);
  CHECK(!flag);
  MPI_Info used;
  MPI_Session_get_info(s, &used);
  char value[64];
  MPI_Info_get(used, "thread_level", sizeof value - 1, value, &flag);
  CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0);
  MPI_Info_get(used, "mpi_thread_support_level", sizeof value - 1, value, &flag); /* MPI-4.1's name */
  CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0);
  MPI_Info_free(&used);
  /* Process set names match without regard to case, as in MPICH and Open MPI. */
  MPI_Group lower;
  int lower_size = -1;
  MPI_Group_from_session_pset(s, "mpi://self", &lower);
  MPI_Group_size(lower, &lower_size);
  CHECK(lower_size == 1);
  MPI_Group_free(&lower);
  use_session(s);
  if (only) {
    MPI_Session_finalize(&s);
    CHECK(s == MPI_SESSION_NULL);
    /* A second session, then nothing: the process leaves the job at exit. Without a thread level
     * key a session gets MPI_THREAD_MULTIPLE (MPICH's default; MPI-4.0 11.3.1 discourages SINGLE). */
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Session_get_info(s, &used);
    MPI_Info_get(used, "mpi_thread_support_level", sizeof value - 1, value, &flag);
    CHECK(flag && strcmp(value, "MPI_THREAD_MULTIPLE") == 0);
    MPI_Info_free(&used);
    use_session(s);
    MPI_Session_finalize(&s);
    printf("sessions: OK (sessions only)\n");
    return 0;
  }
  MPI_Init(&argc, &argv);
  MPI_Initialized(&flag);
  CHECK(flag);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Session s2;
  MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2);
  use_session(s2);
  MPI_Session_finalize(&s2);
  MPI_Finalize();
  MPI_Finalized(&flag);
  CHECK(flag);
  use_session(s); /* the session outlives MPI_Finalize */
  MPI_Session_finalize(&s);
  if (rank == 0) printf("sessions: OK\n");
  return 0;
}
