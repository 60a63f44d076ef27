/* Attributes across MPI_Comm_dup / idup / free: copy callbacks (value changed, not copied, DUP_FN,
 * NULL_COPY_FN), delete callbacks on free, a failing copy callback (the dup fails with its error and
 * gives MPI_COMM_NULL), a failing delete callback (the attribute stays), and MPI_Finalize running the
 * delete callbacks of MPI_COMM_SELF's attributes first, newest set first, while MPI_Finalized is still
 * false (MPI-3.1 8.7.1; checked after MPI_Finalize returns). */
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

static int refuse_deletes = 1;
static int delete_or_refuse(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm; (void)keyval; (void)value; (void)extra;
  return refuse_deletes ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* MPI_COMM_SELF's delete callbacks at MPI_Finalize: the order they ran in, and whether MPI was usable. */
static int at_exit_order[3], at_exit_calls = 0, at_exit_errors = 0;
static int record_at_exit(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval; (void)extra;
  int finalized = 1, size = 0;
  MPI_Finalized(&finalized);
  if (finalized || comm != MPI_COMM_SELF || MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS) ++at_exit_errors;
  if (at_exit_calls < 3) at_exit_order[at_exit_calls] = (int)(long)value;
  ++at_exit_calls;
  return MPI_SUCCESS;
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
  CHECK(b == MPI_COMM_NULL);
  MPI_OK(MPI_Comm_delete_attr(a, kv_fail));

  /* A failing delete callback fails MPI_Comm_delete_attr and MPI_Comm_set_attr, and the attribute
   * stays with its value. */
  int kv_sticky;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_or_refuse, &kv_sticky, NULL));
  MPI_OK(MPI_Comm_set_attr(a, kv_sticky, (void*)11L));
  rc = MPI_Comm_delete_attr(a, kv_sticky);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER);
  rc = MPI_Comm_set_attr(a, kv_sticky, (void*)12L);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_OTHER);
  MPI_OK(MPI_Comm_get_attr(a, kv_sticky, &value, &flag));
  CHECK(flag && (long)value == 11);
  refuse_deletes = 0;
  MPI_OK(MPI_Comm_delete_attr(a, kv_sticky));
  MPI_OK(MPI_Comm_get_attr(a, kv_sticky, &value, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Comm_free_keyval(&kv_sticky));
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

  /* Three keyvals set on MPI_COMM_SELF in the order 2, 0, 1 (not their creation order), then freed. */
  int kv_exit[3];
  for (int i = 0; i < 3; ++i) MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, record_at_exit, &kv_exit[i], NULL));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kv_exit[2], (void*)2L));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kv_exit[0], (void*)0L));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kv_exit[1], (void*)1L));
  for (int i = 0; i < 3; ++i) MPI_OK(MPI_Comm_free_keyval(&kv_exit[i]));
  CHECK(at_exit_calls == 0);
  const int failures = finish_test("comm_attrs");
  int after = 0;
  if (at_exit_calls != 3 || at_exit_errors != 0 || at_exit_order[0] != 1 || at_exit_order[1] != 0 ||
      at_exit_order[2] != 2) {
    fprintf(stderr, "rank %d: comm_attrs: MPI_COMM_SELF delete callbacks at MPI_Finalize: %d calls, %d errors, "
            "order %d %d %d (expected 3 calls, 0 errors, order 1 0 2)\n", g_world_rank, at_exit_calls,
            at_exit_errors, at_exit_order[0], at_exit_order[1], at_exit_order[2]);
    after = 1;
  }
  return failures || after;
}
