/* Window attributes with user keyvals (MPI_Win_create_keyval, set/get/delete_attr, free_keyval): a value
 * set, read back, replaced (the delete callback sees the old value), deleted, set again and deleted by
 * MPI_Win_free (the callback runs once per value, with the keyval's extra_state); an unset keyval reads
 * flag = 0; the predefined MPI_WIN_DISP_UNIT still answers. Validated against MPICH. */
#include <mpi.h>
#include <stdio.h>

static int deleted_sum = 0, deleted_calls = 0, extra_seen = 0;
static int rank = 0, failures = 0;
#define CHECK(c)                                                                            \
  do {                                                                                      \
    if (!(c)) {                                                                             \
      fprintf(stderr, "rank %d: %s:%d: CHECK(%s) failed\n", rank, __FILE__, __LINE__, #c); \
      failures++;                                                                           \
    }                                                                                       \
  } while (0)

static int on_delete(MPI_Win win, int keyval, void* value, void* extra) {
  (void)win;
  (void)keyval;
  deleted_sum += *(int*)value;
  deleted_calls++;
  extra_seen += *(int*)extra;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int extra = 1, a = 10, b = 20, c = 30, flag = -1;
  int buf[4];
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  int key, unused_key;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &key, &extra);
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &unused_key, NULL);
  int* got = NULL;
  MPI_Win_get_attr(win, key, &got, &flag);
  CHECK(flag == 0);
  MPI_Win_set_attr(win, key, &a);
  MPI_Win_get_attr(win, key, &got, &flag);
  CHECK(flag == 1 && got == &a);
  MPI_Win_set_attr(win, key, &b);  /* replaces: the callback sees a */
  CHECK(deleted_calls == 1 && deleted_sum == 10);
  MPI_Win_get_attr(win, key, &got, &flag);
  CHECK(flag == 1 && got == &b);
  MPI_Win_delete_attr(win, key);
  CHECK(deleted_calls == 2 && deleted_sum == 30);
  MPI_Win_get_attr(win, key, &got, &flag);
  CHECK(flag == 0);
  MPI_Win_set_attr(win, key, &c);
  MPI_Win_get_attr(win, unused_key, &got, &flag);
  CHECK(flag == 0);
  int* disp_unit = NULL;
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &disp_unit, &flag);
  CHECK(flag == 1 && *disp_unit == (int)sizeof(int));
  MPI_Win_free(&win);  /* deletes c */
  CHECK(deleted_calls == 3 && deleted_sum == 60 && extra_seen == 3);
  MPI_Win_free_keyval(&key);
  CHECK(key == MPI_KEYVAL_INVALID);
  MPI_Win_free_keyval(&unused_key);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return total ? 1 : 0;
}
