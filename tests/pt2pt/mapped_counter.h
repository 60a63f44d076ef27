/* fabmpi's MPI_T counter rendezvous_reads_mapped (messages a receiver copied out of a mapping of the
 * sender's memory), for the tests of MPI_Alloc_mem and adopted memory. Absent (another MPI): reads 0. */
#ifndef FABMPI_TEST_PT2PT_MAPPED_COUNTER_H
#define FABMPI_TEST_PT2PT_MAPPED_COUNTER_H
#include "check.h"

static int mapped_counter_index = -1;
static MPI_T_pvar_session mapped_counter_session;
static MPI_T_pvar_handle mapped_counter_handle;

/* After MPI_Init. Returns whether the counter exists. */
static inline int mapped_counter_start(void) {
  int provided, count = 0;
  MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
  if (MPI_T_pvar_get_index("rendezvous_reads_mapped", MPI_T_PVAR_CLASS_COUNTER, &mapped_counter_index) !=
      MPI_SUCCESS) {
    mapped_counter_index = -1;
    return 0;
  }
  MPI_OK(MPI_T_pvar_session_create(&mapped_counter_session));
  MPI_OK(MPI_T_pvar_handle_alloc(mapped_counter_session, mapped_counter_index, NULL, &mapped_counter_handle, &count));
  MPI_OK(MPI_T_pvar_start(mapped_counter_session, mapped_counter_handle));
  return 1;
}

static inline unsigned long long mapped_reads(void) {
  unsigned long long v = 0;
  if (mapped_counter_index >= 0) MPI_OK(MPI_T_pvar_read(mapped_counter_session, mapped_counter_handle, &v));
  return v;
}

/* Before MPI_Finalize. */
static inline void mapped_counter_stop(void) {
  if (mapped_counter_index >= 0) {
    MPI_OK(MPI_T_pvar_handle_free(mapped_counter_session, &mapped_counter_handle));
    MPI_OK(MPI_T_pvar_session_free(&mapped_counter_session));
  }
  MPI_OK(MPI_T_finalize());
}
#endif
