#include "runtime/errhandler.hpp"

namespace fabmpi {

const ErrhandlerRef& predefined_errhandler(Errhandler::Kind kind) {
  static const ErrhandlerRef fatal = std::make_shared<Errhandler>(
      Errhandler{Errhandler::Kind::are_fatal, nullptr, MPI_ERRORS_ARE_FATAL});
  static const ErrhandlerRef ret = std::make_shared<Errhandler>(
      Errhandler{Errhandler::Kind::errors_return, nullptr, MPI_ERRORS_RETURN});
  static const ErrhandlerRef abort = std::make_shared<Errhandler>(
      Errhandler{Errhandler::Kind::errors_abort, nullptr, MPI_ERRORS_ABORT});
  switch (kind) {
    case Errhandler::Kind::errors_return: return ret;
    case Errhandler::Kind::errors_abort: return abort;
    default: return fatal;
  }
}

}  // namespace fabmpi
