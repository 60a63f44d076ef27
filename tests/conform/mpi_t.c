/* The MPI tool information interface (MPI-3.1 14.3): MPI_T_init_thread/MPI_T_finalize nesting and use
 * before MPI_Init and after MPI_Finalize; every control variable (FABMPI_* tunables) enumerated, looked
 * up by name, read, and refused writes; categories listing each variable once; the point-to-point
 * performance variables (queue lengths, eager/rendezvous/unexpected counters with start, stop, reset,
 * write, readreset); the error classes of bad indices, names, handles, sessions and NULL arguments; and
 * the string convention (truncation, length queries). */
#define _POSIX_C_SOURCE 200809L  /* setenv */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../comm/check.h"

#define T_OK(call)                                                                                      \
  do {                                                                                                  \
    int rc_ = (call);                                                                                   \
    if (rc_ != MPI_SUCCESS) {                                                                           \
      fprintf(stderr, "rank %d: %s:%d: %s returned %d\n", g_world_rank, __FILE__, __LINE__, #call, rc_); \
      g_failures++;                                                                                     \
    }                                                                                                   \
  } while (0)

#define T_ERR(call, cls)                                                                                 \
  do {                                                                                                   \
    int rc_ = (call);                                                                                    \
    if (rc_ != (cls)) {                                                                                  \
      fprintf(stderr, "rank %d: %s:%d: %s returned %d, expected %s (%d)\n", g_world_rank, __FILE__,       \
              __LINE__, #call, rc_, #cls, cls);                                                          \
      g_failures++;                                                                                      \
    }                                                                                                    \
  } while (0)

static int cvar_index(const char* name) {
  int index = -1;
  T_OK(MPI_T_cvar_get_index(name, &index));
  return index;
}

static unsigned long long read_cvar_ull(const char* name) {
  MPI_T_cvar_handle handle;
  int count = 0;
  unsigned long long value = 0;
  T_OK(MPI_T_cvar_handle_alloc(cvar_index(name), NULL, &handle, &count));
  CHECK(count == 1);
  T_OK(MPI_T_cvar_read(handle, &value));
  T_OK(MPI_T_cvar_handle_free(&handle));
  CHECK(handle == MPI_T_CVAR_HANDLE_NULL);
  return value;
}

static unsigned long long read_pvar(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  unsigned long long value = ~0ull;
  T_OK(MPI_T_pvar_read(session, handle, &value));
  return value;
}

static int pvar_index(const char* name, int var_class) {
  int index = -1;
  T_OK(MPI_T_pvar_get_index(name, var_class, &index));
  return index;
}

/* Every MPI_T entry point fails with MPI_T_ERR_NOT_INITIALIZED. */
static void check_not_initialized(void) {
  int n;
  MPI_T_cvar_handle ch = MPI_T_CVAR_HANDLE_NULL;
  MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL;
  T_ERR(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_pvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_cvar_get_index("FABMPI_LOG", &n), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_cvar_read(ch, &n), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_pvar_session_create(&s), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_category_changed(&n), MPI_T_ERR_NOT_INITIALIZED);
  T_ERR(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
}

/* Every control variable: info, lookup by name, a handle, a read. */
static void check_cvars(void) {
  int num = 0;
  T_OK(MPI_T_cvar_get_num(&num));
  CHECK(num > 30);
  for (int i = 0; i < num; ++i) {
    char name[256], desc[1024];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    T_OK(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind, &scope));
    CHECK(strncmp(name, "FABMPI_", 7) == 0);
    CHECK(name_len == (int)strlen(name) + 1);
    CHECK(desc_len == (int)strlen(desc) + 1 && desc_len > 1);
    CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL);
    CHECK(bind == MPI_T_BIND_NO_OBJECT);
    CHECK(scope == (strcmp(name, "FABMPI_LOG") == 0 ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY));
    CHECK(type == MPI_INT || type == MPI_COUNT || type == MPI_UNSIGNED_LONG_LONG || type == MPI_CHAR);
    CHECK((enumtype != MPI_T_ENUM_NULL) == (type == MPI_INT));
    int index = -1;
    T_OK(MPI_T_cvar_get_index(name, &index));
    CHECK(index == i);

    MPI_T_cvar_handle handle;
    int count = -1;
    T_OK(MPI_T_cvar_handle_alloc(i, NULL, &handle, &count));
    if (type == MPI_CHAR) {
      char* text = malloc((size_t)count);
      memset(text, 'x', (size_t)count);
      T_OK(MPI_T_cvar_read(handle, text));
      CHECK(count >= 1 && strlen(text) < (size_t)count);
      if (strcmp(name, "FABMPI_LOG") != 0) CHECK(strlen(text) + 1 == (size_t)count);
      free(text);
    } else {
      CHECK(count == 1);
      long long value = -1;
      T_OK(MPI_T_cvar_read(handle, &value));
      if (type == MPI_INT) {
        int v = (int)value, item_value = -1;
        T_OK(MPI_T_cvar_read(handle, &v));
        CHECK(v == 0 || v == 1);
        int items = 0;
        char ename[32];
        int ename_len = sizeof ename;
        T_OK(MPI_T_enum_get_info(enumtype, &items, ename, &ename_len));
        CHECK(items == 2 && strcmp(ename, "bool") == 0);
        ename_len = sizeof ename;
        T_OK(MPI_T_enum_get_item(enumtype, 1, &item_value, ename, &ename_len));
        CHECK(item_value == 1 && strcmp(ename, "true") == 0);
        T_ERR(MPI_T_enum_get_item(enumtype, 2, &item_value, ename, &ename_len), MPI_T_ERR_INVALID_ITEM);
        T_ERR(MPI_T_enum_get_item(enumtype, -1, &item_value, ename, &ename_len), MPI_T_ERR_INVALID_ITEM);
      }
    }
    if (strcmp(name, "FABMPI_LOG") != 0) {
      long long buf[64] = {0};
      T_ERR(MPI_T_cvar_write(handle, buf), MPI_T_ERR_CVAR_SET_NEVER);
    }
    T_OK(MPI_T_cvar_handle_free(&handle));
    T_ERR(MPI_T_cvar_handle_free(&handle), MPI_T_ERR_INVALID_HANDLE);
  }
  T_ERR(MPI_T_cvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  T_ERR(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
}

/* The string convention of MPI-3.1 14.3.3. */
static void check_strings(void) {
  const int eager = cvar_index("FABMPI_EAGER_MAX");
  char name[64];
  int len = 0;
  T_OK(MPI_T_cvar_get_info(eager, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(len == (int)strlen("FABMPI_EAGER_MAX") + 1);
  len = 0;
  T_OK(MPI_T_cvar_get_info(eager, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(len == (int)strlen("FABMPI_EAGER_MAX") + 1);
  strcpy(name, "untouched");
  len = 4;
  T_OK(MPI_T_cvar_get_info(eager, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(strcmp(name, "FAB") == 0 && len == 4);
  len = 1;
  T_OK(MPI_T_cvar_get_info(eager, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
  CHECK(name[0] == '\0' && len == 1);
  T_OK(MPI_T_cvar_get_info(eager, name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL));
}

/* Categories: every cvar and pvar in exactly one; names round trip. */
static void check_categories(void) {
  int ncat = 0, ncvar = 0, npvar = 0;
  T_OK(MPI_T_category_get_num(&ncat));
  T_OK(MPI_T_cvar_get_num(&ncvar));
  T_OK(MPI_T_pvar_get_num(&npvar));
  CHECK(ncat >= 3);
  int* cvar_seen = calloc((size_t)ncvar, sizeof(int));
  int* pvar_seen = calloc((size_t)npvar, sizeof(int));
  for (int c = 0; c < ncat; ++c) {
    char name[64], desc[256];
    int name_len = sizeof name, desc_len = sizeof desc, nc = -1, np = -1, nsub = -1, index = -1;
    T_OK(MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nsub));
    T_OK(MPI_T_category_get_index(name, &index));
    CHECK(index == c);
    CHECK(nsub == 0 && desc_len > 1);
    int* cv = malloc(sizeof(int) * (size_t)(nc + 1));
    int* pv = malloc(sizeof(int) * (size_t)(np + 1));
    T_OK(MPI_T_category_get_cvars(c, nc, cv));
    T_OK(MPI_T_category_get_pvars(c, np, pv));
    T_OK(MPI_T_category_get_categories(c, 0, NULL));
    for (int i = 0; i < nc; ++i)
      if (cv[i] >= 0 && cv[i] < ncvar) cvar_seen[cv[i]]++;
      else CHECK(0);
    for (int i = 0; i < np; ++i)
      if (pv[i] >= 0 && pv[i] < npvar) pvar_seen[pv[i]]++;
      else CHECK(0);
    free(cv);
    free(pv);
  }
  for (int i = 0; i < ncvar; ++i) CHECK(cvar_seen[i] == 1);
  for (int i = 0; i < npvar; ++i) CHECK(pvar_seen[i] == 1);
  free(cvar_seen);
  free(pvar_seen);
  int index;
  T_OK(MPI_T_category_get_index("pt2pt", &index));
  T_ERR(MPI_T_category_get_index("no such category", &index), MPI_T_ERR_INVALID_NAME);
  T_ERR(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  T_ERR(MPI_T_category_get_cvars(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
  T_ERR(MPI_T_category_get_cvars(0, 1, NULL), MPI_ERR_ARG);
  int update = -1, again = -2;
  T_OK(MPI_T_category_changed(&update));
  T_OK(MPI_T_category_changed(&again));
  CHECK(update == again);
}

/* FABMPI_LOG is writable while MPI runs; the others never. */
static void check_cvar_write(void) {
  MPI_T_cvar_handle handle;
  int count = 0;
  char level[64];
  T_OK(MPI_T_cvar_handle_alloc(cvar_index("FABMPI_LOG"), NULL, &handle, &count));
  CHECK(count >= 6 && count <= (int)sizeof level);
  T_OK(MPI_T_cvar_read(handle, level));
  CHECK(strcmp(level, "warn") == 0);
  T_OK(MPI_T_cvar_write(handle, "error"));
  T_OK(MPI_T_cvar_read(handle, level));
  CHECK(strcmp(level, "error") == 0);
  T_ERR(MPI_T_cvar_write(handle, "loud"), MPI_T_ERR_INVALID);
  T_OK(MPI_T_cvar_write(handle, "warn"));
  T_OK(MPI_T_cvar_read(handle, level));
  CHECK(strcmp(level, "warn") == 0);
  T_ERR(MPI_T_cvar_write(handle, NULL), MPI_ERR_ARG);
  T_OK(MPI_T_cvar_handle_free(&handle));
  T_ERR(MPI_T_cvar_read(handle, level), MPI_T_ERR_INVALID_HANDLE);
  int junk = 0;
  T_ERR(MPI_T_cvar_read((MPI_T_cvar_handle)&junk, level), MPI_T_ERR_INVALID_HANDLE);
}

/* Argument errors of the lookups and handle functions. */
static void check_errors(void) {
  int index, count, n;
  MPI_T_cvar_handle ch;
  T_ERR(MPI_T_cvar_get_index("FABMPI_NO_SUCH_VARIABLE", &index), MPI_T_ERR_INVALID_NAME);
  T_ERR(MPI_T_cvar_get_index(NULL, &index), MPI_ERR_ARG);
  T_ERR(MPI_T_cvar_get_index("FABMPI_LOG", NULL), MPI_ERR_ARG);
  T_ERR(MPI_T_cvar_get_num(NULL), MPI_ERR_ARG);
  T_ERR(MPI_T_cvar_handle_alloc(-1, NULL, &ch, &count), MPI_T_ERR_INVALID_INDEX);
  T_ERR(MPI_T_cvar_handle_alloc(0, NULL, NULL, &count), MPI_ERR_ARG);
  T_ERR(MPI_T_cvar_handle_alloc(0, NULL, &ch, NULL), MPI_ERR_ARG);
  T_ERR(MPI_T_cvar_handle_free(NULL), MPI_ERR_ARG);
  T_ERR(MPI_T_pvar_get_index("posted_recvq_length", MPI_T_PVAR_CLASS_COUNTER, &index), MPI_T_ERR_INVALID_NAME);
  T_ERR(MPI_T_pvar_get_index("no_such_pvar", MPI_T_PVAR_CLASS_LEVEL, &index), MPI_T_ERR_INVALID_NAME);
  T_OK(MPI_T_pvar_get_num(&n));
  T_ERR(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        MPI_T_ERR_INVALID_INDEX);
  T_ERR(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  T_ERR(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  T_ERR(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL), MPI_ERR_ARG);
  /* The classes have strings and are their own class. */
  const int classes[] = {MPI_T_ERR_NOT_INITIALIZED, MPI_T_ERR_INVALID_INDEX, MPI_T_ERR_INVALID_HANDLE,
                         MPI_T_ERR_CVAR_SET_NEVER,  MPI_T_ERR_PVAR_NO_WRITE, MPI_T_ERR_INVALID};
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0, cls = -1;
    MPI_OK(MPI_Error_string(classes[i], text, &len));
    CHECK(len > 0 && strstr(text, "MPI_T_ERR_") == text);
    MPI_OK(MPI_Error_class(classes[i], &cls));
    CHECK(cls == classes[i]);
  }
}

/* The queue lengths and the counters, with traffic to a peer (self at one process). */
static void check_pvars(MPI_T_pvar_session* keep_session, MPI_T_pvar_handle* keep_eager) {
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  const int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_T_pvar_session session, other;
  T_OK(MPI_T_pvar_session_create(&session));
  T_OK(MPI_T_pvar_session_create(&other));
  MPI_T_pvar_handle posted, unexpected, eager, rndv, arrivals, foreign;
  int count = 0;
  T_OK(MPI_T_pvar_handle_alloc(session, pvar_index("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL), NULL, &posted, &count));
  CHECK(count == 1);
  T_OK(MPI_T_pvar_handle_alloc(session, pvar_index("unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL), NULL, &unexpected,
                               &count));
  T_OK(MPI_T_pvar_handle_alloc(session, pvar_index("eager_messages_sent", MPI_T_PVAR_CLASS_COUNTER), NULL, &eager, &count));
  T_OK(MPI_T_pvar_handle_alloc(session, pvar_index("rendezvous_messages_sent", MPI_T_PVAR_CLASS_COUNTER), NULL, &rndv,
                               &count));
  T_OK(MPI_T_pvar_handle_alloc(session, pvar_index("unexpected_messages_received", MPI_T_PVAR_CLASS_COUNTER), NULL,
                               &arrivals, &count));
  T_OK(MPI_T_pvar_handle_alloc(other, pvar_index("eager_messages_sent", MPI_T_PVAR_CLASS_COUNTER), NULL, &foreign, &count));

  /* pvar_get_info of the classes used. */
  int var_class, readonly, continuous, atomic, bind;
  MPI_Datatype type;
  T_OK(MPI_T_pvar_get_info(pvar_index("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL), NULL, NULL, NULL, &var_class,
                           &type, NULL, NULL, NULL, &bind, &readonly, &continuous, &atomic));
  CHECK(var_class == MPI_T_PVAR_CLASS_LEVEL && type == MPI_UNSIGNED_LONG_LONG && readonly && continuous);
  CHECK(bind == MPI_T_BIND_NO_OBJECT);
  T_OK(MPI_T_pvar_get_info(pvar_index("eager_messages_sent", MPI_T_PVAR_CLASS_COUNTER), NULL, NULL, NULL, &var_class,
                           &type, NULL, NULL, NULL, &bind, &readonly, &continuous, &atomic));
  CHECK(var_class == MPI_T_PVAR_CLASS_COUNTER && !readonly && !continuous && atomic);

  /* Levels: a receive that cannot match yet, then its message. */
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(read_pvar(session, posted) == 0);
  CHECK(read_pvar(session, unexpected) == 0);
  int in = -1, out = rank;
  MPI_Request req;
  MPI_OK(MPI_Irecv(&in, 1, MPI_INT, from, 77, MPI_COMM_WORLD, &req));
  CHECK(read_pvar(session, posted) == 1);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));  /* every rank posted its receive: the message is expected */
  MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, 77, MPI_COMM_WORLD));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(in == from);
  CHECK(read_pvar(session, posted) == 0);
  T_ERR(MPI_T_pvar_start(session, posted), MPI_T_ERR_PVAR_NO_STARTSTOP);
  T_ERR(MPI_T_pvar_stop(session, posted), MPI_T_ERR_PVAR_NO_STARTSTOP);
  T_ERR(MPI_T_pvar_reset(session, posted), MPI_T_ERR_PVAR_NO_WRITE);
  T_ERR(MPI_T_pvar_write(session, posted, &in), MPI_T_ERR_PVAR_NO_WRITE);
  unsigned long long value = 0;
  T_ERR(MPI_T_pvar_readreset(session, posted, &value), MPI_T_ERR_PVAR_NO_WRITE);

  /* Counters start stopped at 0. */
  CHECK(read_pvar(session, eager) == 0);
  CHECK(read_pvar(session, arrivals) == 0);
  /* An unexpected message to self, while no other process sends here (between two barriers). */
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  T_OK(MPI_T_pvar_start(session, arrivals));
  MPI_OK(MPI_Send(&out, 1, MPI_INT, rank, 76, MPI_COMM_WORLD));
  int flag = 0;
  while (!flag) MPI_OK(MPI_Iprobe(rank, 76, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, unexpected) == 1);
  CHECK(read_pvar(session, arrivals) == 1);
  T_OK(MPI_T_pvar_stop(session, arrivals));
  MPI_OK(MPI_Recv(&in, 1, MPI_INT, rank, 76, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, unexpected) == 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* And one from the peer, sent before its receive is posted: nothing else reaches this process until
   * the next barrier. */
  MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, 78, MPI_COMM_WORLD));
  flag = 0;
  while (!flag) MPI_OK(MPI_Iprobe(from, 78, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, unexpected) == 1);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(&in, 1, MPI_INT, from, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, arrivals) == 1);
  /* Three eager messages and one rendezvous (1 MiB is above every eager limit). */
  T_OK(MPI_T_pvar_start(session, eager));
  T_OK(MPI_T_pvar_start(session, rndv));
  MPI_OK(MPI_Send(&out, 1, MPI_INT, peer, 78, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(&in, 1, MPI_INT, from, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  const int big = 1 << 20;
  char* sbuf = calloc((size_t)big, 1);
  char* rbuf = calloc((size_t)big, 1);
  MPI_Request reqs[6];
  MPI_OK(MPI_Irecv(&in, 1, MPI_INT, from, 79, MPI_COMM_WORLD, &reqs[0]));
  MPI_OK(MPI_Irecv(&in, 1, MPI_INT, from, 80, MPI_COMM_WORLD, &reqs[1]));
  MPI_OK(MPI_Irecv(rbuf, big, MPI_CHAR, from, 81, MPI_COMM_WORLD, &reqs[2]));
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 79, MPI_COMM_WORLD, &reqs[3]));
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, &reqs[4]));
  MPI_OK(MPI_Isend(sbuf, big, MPI_CHAR, peer, 81, MPI_COMM_WORLD, &reqs[5]));
  MPI_OK(MPI_Waitall(6, reqs, MPI_STATUSES_IGNORE));
  CHECK(read_pvar(session, eager) == 3);
  CHECK(read_pvar(session, rndv) == 1);
  CHECK(read_pvar(other, foreign) == 0); /* another session's handle, never started */
  T_ERR(MPI_T_pvar_read(other, eager, &value), MPI_T_ERR_INVALID_HANDLE);
  T_ERR(MPI_T_pvar_read(session, MPI_T_PVAR_ALL_HANDLES, &value), MPI_T_ERR_INVALID_HANDLE);
  /* Stopped, the value stays. */
  T_OK(MPI_T_pvar_stop(session, eager));
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 82, &in, 1, MPI_INT, from, 82, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, eager) == 3);
  T_OK(MPI_T_pvar_readreset(session, eager, &value));
  CHECK(value == 3);
  CHECK(read_pvar(session, eager) == 0);
  value = 10;
  T_OK(MPI_T_pvar_write(session, eager, &value));
  CHECK(read_pvar(session, eager) == 10);
  T_OK(MPI_T_pvar_start(session, MPI_T_PVAR_ALL_HANDLES)); /* skips the continuous levels */
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, peer, 83, &in, 1, MPI_INT, from, 83, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(read_pvar(session, eager) == 11);
  T_OK(MPI_T_pvar_stop(session, MPI_T_PVAR_ALL_HANDLES));
  T_OK(MPI_T_pvar_reset(session, MPI_T_PVAR_ALL_HANDLES)); /* skips the read-only levels */
  CHECK(read_pvar(session, eager) == 0);
  CHECK(read_pvar(session, rndv) == 0);
  free(sbuf);
  free(rbuf);

  /* Sessions and handles. */
  int junk = 0;
  MPI_T_pvar_session bad_session = (MPI_T_pvar_session)&junk;
  MPI_T_pvar_handle h;
  T_ERR(MPI_T_pvar_handle_alloc(bad_session, 0, NULL, &h, &count), MPI_T_ERR_INVALID_SESSION);
  T_ERR(MPI_T_pvar_handle_alloc(session, -1, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  T_ERR(MPI_T_pvar_handle_alloc(session, 0, NULL, NULL, &count), MPI_ERR_ARG);
  T_ERR(MPI_T_pvar_read(bad_session, eager, &value), MPI_T_ERR_INVALID_SESSION);
  T_ERR(MPI_T_pvar_start(session, (MPI_T_pvar_handle)&junk), MPI_T_ERR_INVALID_HANDLE);
  T_ERR(MPI_T_pvar_session_free(&bad_session), MPI_T_ERR_INVALID_SESSION);
  T_ERR(MPI_T_pvar_session_create(NULL), MPI_ERR_ARG);
  T_ERR(MPI_T_pvar_handle_free(other, &eager), MPI_T_ERR_INVALID_HANDLE);
  T_OK(MPI_T_pvar_handle_free(session, &posted));
  CHECK(posted == MPI_T_PVAR_HANDLE_NULL);
  T_OK(MPI_T_pvar_session_free(&other)); /* frees its handle too */
  CHECK(other == MPI_T_PVAR_SESSION_NULL);
  T_ERR(MPI_T_pvar_read(other, foreign, &value), MPI_T_ERR_INVALID_SESSION);

  /* One running counter kept past MPI_Finalize. */
  T_OK(MPI_T_pvar_start(session, eager));
  *keep_session = session;
  *keep_eager = eager;
}

int main(int argc, char** argv) {
  /* Before MPI_T_init_thread: nothing works. */
  check_not_initialized();
  setenv("FABMPI_EAGER_MAX", "32K", 1);
  int provided = -1;
  T_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* nested */

  /* Before MPI_Init: the environment's values, levels 0, no writes. */
  CHECK(read_cvar_ull("FABMPI_EAGER_MAX") == 32768);
  {
    MPI_T_cvar_handle log;
    int count;
    T_OK(MPI_T_cvar_handle_alloc(cvar_index("FABMPI_LOG"), NULL, &log, &count));
    T_ERR(MPI_T_cvar_write(log, "info"), MPI_T_ERR_CVAR_SET_NOT_NOW);
    T_OK(MPI_T_cvar_handle_free(&log));
    MPI_T_pvar_session s;
    MPI_T_pvar_handle h;
    T_OK(MPI_T_pvar_session_create(&s));
    T_OK(MPI_T_pvar_handle_alloc(s, pvar_index("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL), NULL, &h, &count));
    CHECK(read_pvar(s, h) == 0);
    T_OK(MPI_T_pvar_session_free(&s));
  }

  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  CHECK(read_cvar_ull("FABMPI_EAGER_MAX") == 32768);
  check_cvars();
  check_strings();
  check_categories();
  check_cvar_write();
  check_errors();
  MPI_T_pvar_session session;
  MPI_T_pvar_handle eager;
  check_pvars(&session, &eager);
  MPI_OK(MPI_Send(&g_world_rank, 1, MPI_INT, g_world_rank, 90, MPI_COMM_WORLD)); /* to self, eager */
  MPI_OK(MPI_Recv(&provided, 1, MPI_INT, g_world_rank, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  const unsigned long long before = read_pvar(session, eager);
  CHECK(before >= 1);
  T_OK(MPI_T_finalize()); /* one level left */
  int failures = g_failures;
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());

  /* After MPI_Finalize: still initialized once; counts kept, levels 0, values from the environment. */
  CHECK(read_cvar_ull("FABMPI_EAGER_MAX") == 32768);
  CHECK(read_pvar(session, eager) >= before);
  {
    int count;
    MPI_T_pvar_handle h;
    T_OK(MPI_T_pvar_handle_alloc(session, pvar_index("unexpected_recvq_length", MPI_T_PVAR_CLASS_LEVEL), NULL, &h,
                                 &count));
    CHECK(read_pvar(session, h) == 0);
  }
  T_OK(MPI_T_finalize());
  check_not_initialized();
  /* Again, from scratch: the old session is gone. */
  T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  CHECK(provided == MPI_THREAD_SINGLE);
  T_ERR(MPI_T_pvar_session_free(&session), MPI_T_ERR_INVALID_SESSION);
  T_OK(MPI_T_finalize());
  if (g_failures) fprintf(stderr, "rank %d: mpi_t: %d failures\n", g_world_rank, g_failures);
  return g_failures || failures ? 1 : 0;
}
