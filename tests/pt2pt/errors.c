/* Argument errors under MPI_ERRORS_RETURN come back with the right class. */
#include "check.h"

static void expect(int rc, int cls_expected, const char* what) {
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == cls_expected, "%s: class %d, expected %d", what, cls, cls_expected);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Request r;
  MPI_Status st;
  expect(MPI_Send(&v, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send rank=size");
  expect(MPI_Send(&v, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send rank=-7");
  expect(MPI_Send(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "send to ANY_SOURCE");
  expect(MPI_Recv(&v, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "recv rank");
  expect(MPI_Isend(&v, 1, MPI_INT, 0, -1, MPI_COMM_WORLD, &r), MPI_ERR_TAG, "send ANY_TAG");
  expect(MPI_Send(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "send tag -5");
  expect(MPI_Irecv(&v, 1, MPI_INT, 0, -5, MPI_COMM_WORLD, &r), MPI_ERR_TAG, "recv tag -5");
  expect(MPI_Send(&v, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "send count -1");
  expect(MPI_Recv(&v, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT, "recv count -2");
  expect(MPI_Send(&v, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "datatype null");
  expect(MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "comm null");
  expect(MPI_Send(&v, 1, MPI_INT, 0, 0, (MPI_Comm)0x12345), MPI_ERR_COMM, "comm garbage");
  expect(MPI_Iprobe(0, 0, MPI_COMM_NULL, &v, &st), MPI_ERR_COMM, "iprobe comm null");
  expect(MPI_Probe(size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "probe rank");
  expect(MPI_Send(NULL, 3, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "null buffer");
  r = (MPI_Request)0x12345;
  expect(MPI_Wait(&r, &st), MPI_ERR_REQUEST, "wait on garbage request");
  r = MPI_REQUEST_NULL;
  expect(MPI_Start(&r), MPI_ERR_REQUEST, "start null");
  expect(MPI_Request_free(&r), MPI_ERR_REQUEST, "free null");
  MPI_OK(MPI_Isend(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &r));
  expect(MPI_Start(&r), MPI_ERR_REQUEST, "start nonpersistent");
  MPI_OK(MPI_Recv(&v, 1, MPI_INT, rank, 0, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_Message m = MPI_MESSAGE_NULL;
  expect(MPI_Mrecv(&v, 1, MPI_INT, &m, &st), MPI_ERR_REQUEST, "mrecv null message");
  if (rank == 0) printf("errors OK\n");
  MPI_Finalize();
  return 0;
}
