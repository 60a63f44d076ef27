// Error handlers: the predefined ones and user functions.
#pragma once

#include <mpi.h>

#include <memory>

namespace fabmpi {

struct Errhandler {
  enum class Kind { are_fatal, errors_return, errors_abort, user };
  Kind kind = Kind::are_fatal;
  MPI_Comm_errhandler_function* comm_fn = nullptr;  // MPI_Comm_create_errhandler
  int handle = MPI_ERRHANDLER_NULL;  // set by the binding layer
  MPI_Win_errhandler_function* win_fn = nullptr;    // MPI_Win_create_errhandler
  MPI_Session_errhandler_function* session_fn = nullptr;  // MPI_Session_create_errhandler
  MPI_File_errhandler_function* file_fn = nullptr;        // MPI_File_create_errhandler
};

using ErrhandlerRef = std::shared_ptr<Errhandler>;

// The predefined handlers (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT): immutable.
const ErrhandlerRef& predefined_errhandler(Errhandler::Kind kind);

}  // namespace fabmpi
