/* Error classes and strings as mpi4py's test_errorcode checks them: every predefined class has a
 * non-empty string, user classes and codes are above MPI_ERR_LASTCODE (as in MPICH) and the
 * MPI_LASTUSEDCODE attribute follows them. */
#include <string.h>

#include "../comm/check.h"

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_world_rank));
  const int classes[] = {MPI_SUCCESS,      MPI_ERR_BUFFER,      MPI_ERR_ACCESS,    MPI_ERR_FILE,
                         MPI_ERR_IO,       MPI_ERR_WIN,         MPI_ERR_RMA_SYNC,  MPI_ERR_SPAWN,
                         MPI_ERR_PORT,     MPI_ERR_RMA_FLAVOR,  MPI_ERR_SESSION,   MPI_ERR_NOT_SAME,
                         MPI_ERR_DISP,     MPI_ERR_CONVERSION,  MPI_ERR_KEYVAL,    MPI_ERR_VALUE_TOO_LARGE};
  char text[MPI_MAX_ERROR_STRING];
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
    int len = -1, cls = -1;
    MPI_OK(MPI_Error_string(classes[i], text, &len));
    CHECK(len > 0 && (int)strlen(text) == len);
    MPI_OK(MPI_Error_class(classes[i], &cls));
    CHECK(cls == classes[i]);
  }
  for (int code = 0; code <= MPI_ERR_VALUE_TOO_LARGE; ++code) {
    int len = -1;
    MPI_OK(MPI_Error_string(code, text, &len));
    CHECK(len > 0);
  }
  int* last = NULL;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last >= MPI_ERR_LASTCODE);
  int user_class, user_code;
  MPI_OK(MPI_Add_error_class(&user_class));
  CHECK(user_class > MPI_ERR_LASTCODE);
  MPI_OK(MPI_Add_error_code(user_class, &user_code));
  CHECK(user_code > user_class);
  MPI_OK(MPI_Add_error_string(user_code, "my error"));
  int len = -1, cls = -1;
  MPI_OK(MPI_Error_string(user_code, text, &len));
  CHECK(strcmp(text, "my error") == 0);
  MPI_OK(MPI_Error_class(user_code, &cls));
  CHECK(cls == user_class);
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &last, &flag));
  CHECK(flag && *last == user_code);
  return finish_test("errors");
}
