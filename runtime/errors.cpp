#include <cstdarg>
#include <cstdio>

#include "runtime/rc.hpp"
#include "runtime/runtime.hpp"

namespace fabmpi {
namespace {
thread_local std::string t_reason;
}

Rc fail(int code, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  t_reason = buf;
  return Rc(code);
}

const std::string& last_failure_reason() { return t_reason; }
void clear_failure_reason() { t_reason.clear(); }

int ErrorRegistry::add_class() {
  int cls = ++last_used_;
  class_of_code_[cls] = cls;
  return cls;
}

Rc ErrorRegistry::add_code(int error_class, int* code) {
  if (class_of(error_class) != error_class)
    return fail(MPI_ERR_ARG, "%d is not a valid error class", error_class);
  int c = ++last_used_;
  class_of_code_[c] = error_class;
  *code = c;
  return Rc();
}

Rc ErrorRegistry::set_string(int code, const std::string& text) {
  if (code <= MPI_ERR_LASTCODE_PREDEFINED)
    return fail(MPI_ERR_ARG, "cannot change the string of predefined error code %d", code);
  if (class_of(code) < 0) return fail(MPI_ERR_ARG, "%d is not a user-defined error code", code);
  if (text.size() >= MPI_MAX_ERROR_STRING)
    return fail(MPI_ERR_ARG, "error string longer than MPI_MAX_ERROR_STRING-1");
  strings_[code] = text;
  return Rc();
}

int ErrorRegistry::class_of(int code) const {
  if (code >= 0 && code <= MPI_ERR_LASTCODE_PREDEFINED) return code;
  auto it = class_of_code_.find(code);
  return it == class_of_code_.end() ? -1 : it->second;
}

const std::string* ErrorRegistry::string_of(int code) const {
  auto it = strings_.find(code);
  return it == strings_.end() ? nullptr : &it->second;
}

}  // namespace fabmpi
