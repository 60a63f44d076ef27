// mpirun's command line as data: a pure parser (no I/O, no environment) so it is unit-testable.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace fabmpi::launcher {

enum class BindTo { none, core };

struct HostSlot {
  std::string name;
  int slots = 1;
};

struct Options {
  int np = 0;                          // 0: not given (one rank per listed slot, or 1)
  std::vector<std::string> hosts;      // --host a,b (repeatable)
  std::string hostfile;                // --hostfile PATH (read by the caller: see parse_hostfile)
  // -x VAR (export mpirun's value) or -x VAR=VAL; -genv VAR VAL. Applied in command-line order.
  struct EnvSetting {
    std::string name;
    std::optional<std::string> value;  // nullopt: take mpirun's own value
  };
  std::vector<EnvSetting> env;
  bool tag_output = false;
  int timeout_seconds = 0;             // 0: no limit
  std::string trace_file;              // --trace FILE: the merged timeline of every rank's MPI calls
  BindTo bind_to = BindTo::none;
  bool report_bindings = false;
  std::string wdir;                    // "" : mpirun's working directory
  bool oversubscribe = false;          // accepted; oversubscription is always allowed
  std::string launch_agent;            // --launch-agent CMD: starts ranks on other hosts ("" : FABMPI_LAUNCH_AGENT)
  bool help = false;
  bool help_params = false;
  bool version = false;
  std::vector<std::string> program;    // program and its arguments, passed through untouched
};

struct ParseResult {
  Options options;
  std::string error;  // "" on success; otherwise one line for "mpirun: <error>"
  bool ok() const { return error.empty(); }
};

// args excludes argv[0]. Options come first; the first non-option word (or whatever follows "--")
// starts the program. Long options take "--opt value" or "--opt=value"; single-dash spellings of the
// long options (-np, -host, -wdir, -bind-to...) are accepted as mpirun users expect.
ParseResult parse_args(const std::vector<std::string>& args);

// MPIEXEC_TIMEOUT's value (MPICH's and Open MPI's launchers both read it) as a --timeout: false with a
// one-line *error when it is not a positive number of seconds.
bool parse_timeout_env(const std::string& value, int* seconds, std::string* error);

// "name" or "name:N" (N slots, N >= 1), as --host and hostfiles write a host. Error text in *error.
bool parse_host_spec(const std::string& spec, HostSlot* out, std::string* error);

// Hostfile text: one host per line, "name [slots=N]", '#' starts a comment. Error text in *error.
bool parse_hostfile(const std::string& text, std::vector<HostSlot>* hosts, std::string* error);

// The --help text.
std::string usage_text();

}  // namespace fabmpi::launcher
