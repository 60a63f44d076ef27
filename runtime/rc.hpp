// The core's error currency: an MPI error code (class or user code) that must be looked at.
// A failing site sets a human-readable reason with fail(); the binding layer turns it into the
// one-line message of MPI_ERRORS_ARE_FATAL or leaves it for MPI_Error_string-style reporting.
#pragma once

#include <mpi.h>

#include <string>

namespace fabmpi {

class [[nodiscard]] Rc {
 public:
  constexpr Rc() noexcept = default;
  constexpr explicit Rc(int code) noexcept : code_(code) {}
  constexpr bool ok() const noexcept { return code_ == MPI_SUCCESS; }
  constexpr int code() const noexcept { return code_; }
  constexpr explicit operator bool() const noexcept { return ok(); }

 private:
  int code_ = MPI_SUCCESS;
};

// Returns Rc(code) and records the reason for this thread (printf-style, one line, no trailing '\n').
Rc fail(int code, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
// The reason recorded by the last fail() on this thread ("" if none), and clearing it.
const std::string& last_failure_reason();
void clear_failure_reason();

}  // namespace fabmpi

// The one propagation macro: evaluate, and return the Rc from the enclosing function if it failed.
#define FABMPI_TRY(expr)                   \
  do {                                     \
    ::fabmpi::Rc fabmpi_rc_ = (expr);      \
    if (!fabmpi_rc_.ok()) return fabmpi_rc_; \
  } while (0)
