/* Generalized requests, MPI_Aint_add/diff, MPI_Comm_remote_size/group, MPI_Intercomm_merge,
 * MPI_Pcontrol, MPI_Comm_get_parent, the MPI-1 attribute names, MPI_Info_create_env and MPI_INFO_ENV. */
#include <stdlib.h>
#include <string.h>

#include "../comm/check.h"

struct greq_state {
  int queried, freed, cancelled_with;
};

static int query_fn(void* extra, MPI_Status* status) {
  struct greq_state* s = extra;
  s->queried++;
  MPI_Status_set_elements(status, MPI_INT, 3);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = 5;
  status->MPI_TAG = 9;
  return MPI_SUCCESS;
}

static int free_fn(void* extra) {
  ((struct greq_state*)extra)->freed++;
  return MPI_SUCCESS;
}

static int cancel_fn(void* extra, int complete) {
  ((struct greq_state*)extra)->cancelled_with = complete;
  return MPI_SUCCESS;
}

static int failing_free_fn(void* extra) {
  ((struct greq_state*)extra)->freed++;
  return MPI_ERR_OTHER;
}

static void check_grequest(void) {
  struct greq_state s = {0, 0, -1};
  MPI_Request req;
  MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s, &req));
  int flag = 1;
  MPI_Status st;
  MPI_OK(MPI_Test(&req, &flag, &st));
  CHECK(flag == 0);
  MPI_OK(MPI_Request_get_status(req, &flag, &st));
  CHECK(flag == 0 && s.queried == 0);
  MPI_OK(MPI_Cancel(&req));
  CHECK(s.cancelled_with == 0);
  MPI_OK(MPI_Grequest_complete(req));
  MPI_OK(MPI_Request_get_status(req, &flag, &st));
  CHECK(flag == 1 && s.queried == 1 && s.freed == 0);
  MPI_OK(MPI_Cancel(&req)); /* cancel_fn runs on a complete request too, told it is complete */
  CHECK(s.cancelled_with == 1);
  MPI_OK(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL);
  CHECK(s.queried == 2 && s.freed == 1);
  int count = -1;
  MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 3);
  CHECK(st.MPI_SOURCE == 5 && st.MPI_TAG == 9);

  /* Completed before Waitall, alongside a null request. */
  struct greq_state s2 = {0, 0, -1};
  MPI_Request reqs[2];
  MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s2, &reqs[0]));
  reqs[1] = MPI_REQUEST_NULL;
  MPI_OK(MPI_Grequest_complete(reqs[0]));
  MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK(s2.queried == 1 && s2.freed == 1 && reqs[0] == MPI_REQUEST_NULL);

  /* free_fn's error is the completing call's. */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  struct greq_state s3 = {0, 0, -1};
  MPI_OK(MPI_Grequest_start(query_fn, failing_free_fn, cancel_fn, &s3, &req));
  MPI_OK(MPI_Grequest_complete(req));
  CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_ERR_OTHER);
  CHECK(s3.freed == 1);
  /* Completing twice, or completing a request that is not generalized. */
  MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &s3, &req));
  MPI_OK(MPI_Grequest_complete(req));
  CHECK(MPI_Grequest_complete(req) == MPI_ERR_REQUEST);
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int v = 0;
  MPI_Request other;
  MPI_OK(MPI_Isend(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &other));
  CHECK(MPI_Grequest_complete(other) == MPI_ERR_REQUEST);
  MPI_OK(MPI_Wait(&other, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static int g_deleted = 0;
static int delete_fn(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  g_deleted++;
  return MPI_SUCCESS;
}

static void check_legacy(void) {
  int pair[2];
  MPI_Aint a0, a1;
  MPI_OK(MPI_Get_address(&pair[0], &a0));
  MPI_OK(MPI_Get_address(&pair[1], &a1));
  CHECK(MPI_Aint_diff(a1, a0) == (MPI_Aint)sizeof(int));
  CHECK(MPI_Aint_add(a0, (MPI_Aint)sizeof(int)) == a1);
  MPI_OK(MPI_Pcontrol(0));
  MPI_OK(MPI_Pcontrol(1, "anything"));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int remote_size;
  MPI_Group remote_group;
  CHECK(MPI_Comm_remote_size(MPI_COMM_WORLD, &remote_size) == MPI_ERR_COMM);
  CHECK(MPI_Comm_remote_group(MPI_COMM_WORLD, &remote_group) == MPI_ERR_COMM);
  CHECK(MPI_Comm_remote_size(MPI_COMM_NULL, &remote_size) == MPI_ERR_COMM);
  MPI_Comm merged;
  CHECK(MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &merged) == MPI_ERR_COMM);
  CHECK(MPI_Intercomm_merge(MPI_COMM_NULL, 1, &merged) == MPI_ERR_COMM);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_Comm parent = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_get_parent(&parent));
  CHECK(parent == MPI_COMM_NULL);

  int* tag_ub = NULL;
  int flag = 0;
  MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767);
  int keyval;
  MPI_OK(MPI_Keyval_create(MPI_DUP_FN, delete_fn, &keyval, NULL));
  static int value = 42;
  MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, keyval, &value));
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int* got = NULL;
  MPI_OK(MPI_Attr_get(dup, keyval, &got, &flag));
  CHECK(flag && got == &value);
  MPI_OK(MPI_Comm_free(&dup));
  CHECK(g_deleted == 1);
  MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, keyval));
  CHECK(g_deleted == 2);
  MPI_OK(MPI_Keyval_free(&keyval));
  CHECK(keyval == MPI_KEYVAL_INVALID);
  MPI_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &keyval, NULL));
  MPI_OK(MPI_Keyval_free(&keyval));
}

/* MPI-4.0 11.4: the keys it sets describe this process (an implementation may leave any out, but what
 * it sets must be right). */
static void check_info_env(int argc, char** argv) {
  MPI_Info env;
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0, size = 0;
  MPI_OK(MPI_Info_create_env(argc, argv, &env));
  MPI_OK(MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, value, &flag));
  if (flag) CHECK(strcmp(value, argv[0]) == 0);
  MPI_OK(MPI_Info_get(env, "maxprocs", MPI_MAX_INFO_VAL, value, &flag));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (flag) CHECK(atoi(value) == size);
  MPI_OK(MPI_Info_free(&env));
  MPI_OK(MPI_Info_create_env(0, NULL, &env));
  MPI_OK(MPI_Info_free(&env));
  /* The predefined MPI_INFO_ENV describes the same process. */
  MPI_OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag));
  if (flag) CHECK(strcmp(value, argv[0]) == 0);
  MPI_OK(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, value, &flag));
  if (flag) CHECK(atoi(value) == size);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  check_grequest();
  check_legacy();
  check_info_env(argc, argv);
  return finish_test("misc");
}
