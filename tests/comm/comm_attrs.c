/* Attributes across MPI_Comm_dup / idup / free: copy callbacks (value changed, not copied, DUP_FN,
 * NULL_COPY_FN), delete callbacks on free, a failing copy callback. */
#include "check.h"

static int copies = 0, deletes = 0;
static long last_deleted = 0;

static int copy_plus_one(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm; (void)keyval;
  CHECK(extra == (void*)&copies);
  ++copies;
  *(void**)out = (void*)((long)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

static int copy_refuse(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm; (void)keyval; (void)extra; (void)in; (void)out;
  *flag = 0;
  return MPI_SUCCESS;
}

static int copy_fail(MPI_Comm oldcomm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)oldcomm; (void)keyval; (void)extra; (void)in; (void)out; (void)flag;
  return MPI_ERR_OTHER;
}

static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm; (void)keyval; (void)extra;
  ++deletes;
  last_deleted = (long)value;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));

  int kv_plus, kv_refuse, kv_nullcopy, kv_dupfn;
  MPI_OK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &kv_plus, &copies));
  MPI_OK(MPI_Comm_create_keyval(copy_refuse, count_delete, &kv_refuse, NULL));
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kv_nullcopy, NULL));
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kv_dupfn, NULL));

  MPI_Comm a, b, c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_set_attr(a, kv_plus, (void*)100L));
  MPI_OK(MPI_Comm_set_attr(a, kv_refuse, (void*)5L));
  MPI_OK(MPI_Comm_set_attr(a, kv_nullcopy, (void*)6L));
  MPI_OK(MPI_Comm_set_attr(a, kv_dupfn, (void*)7L));

  MPI_OK(MPI_Comm_dup(a, &b));
  CHECK(copies == 1);
  void* value = NULL;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(b, kv_plus, &value, &flag));
  CHECK(flag && (long)value == 101);
  MPI_OK(MPI_Comm_get_attr(b, kv_refuse, &value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Comm_get_attr(b, kv_nullcopy, &value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Comm_get_attr(b, kv_dupfn, &value, &flag));
  CHECK(flag && (long)value == 7);
  /* The original keeps its values. */
  MPI_OK(MPI_Comm_get_attr(a, kv_plus, &value, &flag));
  CHECK(flag && (long)value == 100);

  /* idup copies as well (by the time the request completes). */
  MPI_Request req;
  MPI_Status status;
  MPI_OK(MPI_Comm_idup(b, &c, &req));
  MPI_OK(MPI_Wait(&req, &status));
  CHECK(copies == 2);
  MPI_OK(MPI_Comm_get_attr(c, kv_plus, &value, &flag));
  CHECK(flag && (long)value == 102);
  check_comm_carries(c, 1);

  /* Free runs the delete callbacks of what each communicator holds. */
  MPI_OK(MPI_Comm_free(&c));
  CHECK(deletes == 1 && last_deleted == 102);
  MPI_OK(MPI_Comm_free(&b));
  CHECK(deletes == 2 && last_deleted == 101);
  MPI_OK(MPI_Comm_free(&a));
  CHECK(deletes == 4);  /* kv_plus (100) and kv_refuse (5) */

  /* A failing copy callback fails the dup with its error, under MPI_ERRORS_RETURN. */
  int kv_fail;
  MPI_OK(MPI_Comm_create_keyval(copy_fail, MPI_COMM_NULL_DELETE_FN, &kv_fail, NULL));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_attr(a, kv_fail, (void*)1L));
  b = MPI_COMM_NULL;
  int rc = MPI_Comm_dup(a, &b);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER);
  MPI_OK(MPI_Comm_delete_attr(a, kv_fail));
  /* The error handler is inherited by dup and split. */
  MPI_OK(MPI_Comm_dup(a, &b));
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_get_errhandler(b, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  MPI_OK(MPI_Errhandler_free(&eh));
  MPI_OK(MPI_Comm_free(&b));
  MPI_OK(MPI_Comm_free(&a));

  MPI_OK(MPI_Comm_free_keyval(&kv_plus));
  MPI_OK(MPI_Comm_free_keyval(&kv_refuse));
  MPI_OK(MPI_Comm_free_keyval(&kv_nullcopy));
  MPI_OK(MPI_Comm_free_keyval(&kv_dupfn));
  MPI_OK(MPI_Comm_free_keyval(&kv_fail));
  return finish_test("comm_attrs");
}
