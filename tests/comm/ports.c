/* Ports, MPI_Comm_join and the name service (MPI-3.1 10.4): publish/lookup/unpublish (a lookup after
 * unpublishing fails with MPI_ERR_NAME), MPI_Comm_accept on MPI_COMM_SELF at rank 0 with every other rank
 * connecting as one group, an intercommunicator broadcast over the result, and MPI_Comm_join of ranks 0
 * and 1 over a Unix socket. Processes of another job connecting are covered by tests/comm/spawn.c's
 * children, which reach their parents the same way. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#define CHECK(c) do { if (!(c)) { printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
/* A spawned child connects to the port its parent passed in argv[1] (a process of another job), and
 * the two trade a value over the new intercommunicator. */
static int run_child(const char* port) {
  MPI_Comm parent, inter;
  MPI_Comm_get_parent(&parent);
  CHECK(parent != MPI_COMM_NULL);
  MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
  v += 1;
  MPI_Send(&v, 1, MPI_INT, 0, 6, inter);
  MPI_Comm_disconnect(&inter);
  MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1) return run_child(argv[1]);
  int rank, size; MPI_Comm_rank(MPI_COMM_WORLD, &rank); MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* names */
  char port[MPI_MAX_PORT_NAME], found[MPI_MAX_PORT_NAME], service[64];
  MPI_Open_port(MPI_INFO_NULL, port);
  snprintf(service, sizeof service, "svc-%d", rank);
  MPI_Publish_name(service, MPI_INFO_NULL, port);
  MPI_Lookup_name(service, MPI_INFO_NULL, found);
  CHECK(strcmp(port, found) == 0);
  MPI_Unpublish_name(service, MPI_INFO_NULL, port);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Lookup_name(service, MPI_INFO_NULL, found), cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_NAME);
  MPI_Close_port(port);
  /* accept (rank 0 on SELF) / connect (the others) */
  MPI_Comm rest; MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &rest);
  if (size > 1) {
    MPI_Comm inter;
    if (rank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
      MPI_Close_port(port);
      int rs; MPI_Comm_remote_size(inter, &rs); CHECK(rs == size - 1);
      int v = 42; MPI_Bcast(&v, 1, MPI_INT, MPI_ROOT, inter);
    } else {
      if (rank == 1) MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Comm_connect(port, MPI_INFO_NULL, 0, rest, &inter);
      int rs; MPI_Comm_remote_size(inter, &rs); CHECK(rs == 1);
      int v = 0; MPI_Bcast(&v, 1, MPI_INT, 0, inter); CHECK(v == 42);
    }
    MPI_Comm_disconnect(&inter);
  }
  /* MPI_Comm_join over a connected socket between ranks 0 and 1 (a Unix socket whose path rank 0
     sends over MPI) */
  if (size > 1 && rank < 2) {
    int fd = -1;
    if (rank == 0) {
      int l = socket(AF_UNIX, SOCK_STREAM, 0);
      struct sockaddr_un { unsigned short f; char p[108]; } a = {AF_UNIX, ""};
      snprintf(a.p, sizeof a.p, "/tmp/fabmpi-join-%d", (int)getpid());
      unlink(a.p);
      CHECK(bind(l, (void*)&a, sizeof a) == 0 && listen(l, 1) == 0);
      MPI_Send(a.p, 108, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
      fd = accept(l, 0, 0); close(l); unlink(a.p);
    } else {
      struct sockaddr_un { unsigned short f; char p[108]; } a = {AF_UNIX, ""};
      MPI_Recv(a.p, 108, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      fd = socket(AF_UNIX, SOCK_STREAM, 0);
      CHECK(connect(fd, (void*)&a, sizeof a) == 0);
    }
    MPI_Comm joined; MPI_Comm_join(fd, &joined); close(fd);
    int rs; MPI_Comm_remote_size(joined, &rs); CHECK(rs == 1);
    int mine = rank + 10, theirs = -1;
    MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &theirs, 1, MPI_INT, 0, 3, joined, MPI_STATUS_IGNORE);
    CHECK(theirs == (1 - rank) + 10);
    MPI_Comm_disconnect(&joined);
  }
  MPI_Comm_free(&rest);
  /* Another job connects: rank 0 spawns a child and accepts its connection. */
  if (rank == 0) {
    MPI_Comm child, inter;
    char* child_argv[] = {port, NULL};
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &child, MPI_ERRCODES_IGNORE);
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    MPI_Close_port(port);
    int v = 41;
    MPI_Send(&v, 1, MPI_INT, 0, 5, inter);
    MPI_Recv(&v, 1, MPI_INT, 0, 6, inter, MPI_STATUS_IGNORE);
    CHECK(v == 42);
    MPI_Comm_disconnect(&inter);
    MPI_Comm_disconnect(&child);
  }
  if (rank == 0) printf("ports: OK (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
