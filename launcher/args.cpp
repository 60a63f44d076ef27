#include "launcher/args.hpp"

#include <charconv>
#include <sstream>

namespace fabmpi::launcher {
namespace {

bool parse_int_in(const std::string& text, int lo, int hi, int* out) {
  int v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool valid_env_name(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (char c : name)
    if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

enum class Opt { np, host, hostfile, export_env, genv, tag_output, timeout, trace, bind_to, report_bindings, wdir,
                 oversubscribe, launch_agent, help, help_params, version };

struct OptSpec {
  const char* name;  // single-dash spelling; "--name" is accepted too
  Opt opt;
  int values;        // how many following words it takes
};

constexpr OptSpec kOptions[] = {
    {"-n", Opt::np, 1},           {"-np", Opt::np, 1},
    {"-c", Opt::np, 1},
    {"-host", Opt::host, 1},      {"-hosts", Opt::host, 1},          {"-H", Opt::host, 1},
    {"-hostfile", Opt::hostfile, 1}, {"-machinefile", Opt::hostfile, 1}, {"-f", Opt::hostfile, 1},
    {"-x", Opt::export_env, 1},   {"-genv", Opt::genv, 2},
    {"-tag-output", Opt::tag_output, 0}, {"-l", Opt::tag_output, 0},
    {"-timeout", Opt::timeout, 1},
    {"-trace", Opt::trace, 1},
    {"-bind-to", Opt::bind_to, 1},
    {"-report-bindings", Opt::report_bindings, 0},
    {"-wdir", Opt::wdir, 1},      {"-wd", Opt::wdir, 1},
    {"-oversubscribe", Opt::oversubscribe, 0},
    {"-launch-agent", Opt::launch_agent, 1}, {"-launcher-exec", Opt::launch_agent, 1},
    {"-h", Opt::help, 0},         {"-help", Opt::help, 0},
    {"-help-params", Opt::help_params, 0},
    {"-V", Opt::version, 0},      {"-version", Opt::version, 0},
};

const OptSpec* find_option(const std::string& name) {
  for (const OptSpec& spec : kOptions)
    if (name == spec.name) return &spec;
  return nullptr;
}

}  // namespace

bool parse_timeout_env(const std::string& value, int* seconds, std::string* error) {
  if (parse_int_in(value, 1, 1 << 30, seconds)) return true;
  *error = "MPIEXEC_TIMEOUT='" + value + "' is not a positive number of seconds";
  return false;
}

ParseResult parse_args(const std::vector<std::string>& args) {
  ParseResult result;
  Options& o = result.options;
  auto error = [&result](std::string text) {
    result.error = std::move(text);
    return result;
  };
  std::size_t i = 0;
  while (i < args.size()) {
    const std::string& word = args[i];
    if (word == "--") {
      ++i;
      break;
    }
    if (word.size() < 2 || word[0] != '-') break;  // the program
    // "--name[=value]" -> "-name" (+ inline value); "-name" as is.
    std::string name = word;
    std::optional<std::string> inline_value;
    if (word.rfind("--", 0) == 0) {
      name = word.substr(1);
      if (auto eq = name.find('='); eq != std::string::npos) {
        inline_value = name.substr(eq + 1);
        name.resize(eq);
      }
    }
    const OptSpec* spec = find_option(name);
    if (spec == nullptr) return error("unknown option '" + word + "' (see mpirun --help)");
    std::vector<std::string> values;
    if (inline_value) {
      if (spec->values != 1) return error("option '" + name.substr(0) + "' does not take '=value'");
      values.push_back(*inline_value);
    } else {
      for (int k = 0; k < spec->values; ++k) {
        if (i + 1 + static_cast<std::size_t>(k) >= args.size())
          return error("option '" + word + "' needs " + (spec->values == 1 ? "a value" : "two values"));
        values.push_back(args[i + 1 + static_cast<std::size_t>(k)]);
      }
      i += static_cast<std::size_t>(spec->values);
    }
    ++i;
    switch (spec->opt) {
      case Opt::np:
        if (!parse_int_in(values[0], 1, 1 << 20, &o.np))
          return error("'" + word + "' needs a positive number of processes, not '" + values[0] + "'");
        break;
      case Opt::host:
        for (auto& h : split_commas(values[0])) o.hosts.push_back(h);
        if (o.hosts.empty()) return error("'" + word + "' needs a host name");
        break;
      case Opt::hostfile:
        if (values[0].empty()) return error("'" + word + "' needs a file name");
        o.hostfile = values[0];
        break;
      case Opt::export_env: {
        const std::string& v = values[0];
        auto eq = v.find('=');
        Options::EnvSetting s{v.substr(0, eq), std::nullopt};
        if (eq != std::string::npos) s.value = v.substr(eq + 1);
        if (!valid_env_name(s.name)) return error("-x: '" + s.name + "' is not a valid variable name");
        o.env.push_back(std::move(s));
        break;
      }
      case Opt::genv:
        if (!valid_env_name(values[0])) return error("-genv: '" + values[0] + "' is not a valid variable name");
        o.env.push_back({values[0], values[1]});
        break;
      case Opt::tag_output: o.tag_output = true; break;
      case Opt::timeout:
        if (!parse_int_in(values[0], 1, 1 << 30, &o.timeout_seconds))
          return error("'" + word + "' needs a positive number of seconds, not '" + values[0] + "'");
        break;
      case Opt::trace:
        if (values[0].empty()) return error("'" + word + "' needs a file name");
        o.trace_file = values[0];
        break;
      case Opt::bind_to:
        if (values[0] == "core") o.bind_to = BindTo::core;
        else if (values[0] == "none") o.bind_to = BindTo::none;
        else return error("'" + word + "' takes core or none, not '" + values[0] + "'");
        break;
      case Opt::report_bindings: o.report_bindings = true; break;
      case Opt::wdir:
        if (values[0].empty()) return error("'" + word + "' needs a directory");
        o.wdir = values[0];
        break;
      case Opt::oversubscribe: o.oversubscribe = true; break;
      case Opt::launch_agent:
        if (values[0].empty()) return error("'" + word + "' needs a command");
        o.launch_agent = values[0];
        break;
      case Opt::help: o.help = true; break;
      case Opt::help_params: o.help_params = true; break;
      case Opt::version: o.version = true; break;
    }
  }
  o.program.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
  if (o.program.empty() && !o.help && !o.help_params && !o.version)
    return error("no program to run (usage: mpirun [options] program [args...]; see mpirun --help)");
  return result;
}

bool parse_host_spec(const std::string& spec, HostSlot* out, std::string* error) {
  HostSlot host{spec, 1};
  if (auto colon = spec.find(':'); colon != std::string::npos) {
    host.name = spec.substr(0, colon);
    if (!parse_int_in(spec.substr(colon + 1), 1, 1 << 20, &host.slots)) {
      *error = "bad slot count in '" + spec + "'";
      return false;
    }
  }
  if (host.name.empty()) {
    *error = "no host name in '" + spec + "'";
    return false;
  }
  *out = host;
  return true;
}

bool parse_hostfile(const std::string& text, std::vector<HostSlot>* hosts, std::string* error) {
  hosts->clear();
  std::stringstream lines(text);
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    ++line_number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    std::stringstream words(line);
    std::string word;
    HostSlot host;
    bool have_name = false;
    while (words >> word) {
      if (!have_name) {
        host.name = word;
        have_name = true;
      } else if (word.rfind("slots=", 0) == 0) {
        if (!parse_int_in(word.substr(6), 1, 1 << 20, &host.slots)) {
          *error = "hostfile line " + std::to_string(line_number) + ": bad slot count '" + word + "'";
          return false;
        }
      } else if (word.rfind("max_slots=", 0) == 0) {
        // accepted for Open MPI compatibility; oversubscription is always allowed
      } else {
        *error = "hostfile line " + std::to_string(line_number) + ": unexpected '" + word + "'";
        return false;
      }
    }
    if (!have_name) continue;
    // MPICH style "host:N"
    if (host.name.find(':') != std::string::npos || host.name.empty()) {
      const int slots = host.slots;
      std::string why;
      if (!parse_host_spec(host.name, &host, &why)) {
        *error = "hostfile line " + std::to_string(line_number) + ": " + why;
        return false;
      }
      if (slots != 1) host.slots = slots;  // "slots=" wins over ":N"
    }
    hosts->push_back(host);
  }
  if (hosts->empty()) {
    *error = "hostfile names no hosts";
    return false;
  }
  return true;
}

std::string usage_text() {
  return R"(Usage: mpirun [options] [--] program [args...]
       mpiexec is the same program.

Starts N copies of program (the ranks of one MPI job) and serves them PMI-1.

Options:
  -n, -np, --np N          number of ranks (default: the slots given by --host/--hostfile, or 1)
  --host, -H, -hosts H1,H2 hosts to run on ("name:N" for N slots); ranks fill each host's slots in
                           order, then wrap around; this machine's names run ranks here
  --hostfile, -f FILE      file with one host per line ("name slots=N" or "name:N"); '#' comments
  --launch-agent CMD       how ranks start on other hosts: "CMD HOST COMMAND" ({host} in CMD places the
                           host; default "ssh -x", in a Slurm allocation srun; FABMPI_LAUNCH_AGENT);
                           mpirun must be at the same path there, and the hosts must reach this one
                           (FABMPI_LAUNCHER_ADDR: the address they use). No hosts given inside a Slurm
                           allocation: its nodes and task counts
  -x VAR                   pass mpirun's value of VAR to the ranks
  -x VAR=VAL               set VAR=VAL in the ranks' environment
  -genv VAR VAL            set VAR=VAL in the ranks' environment (MPICH style)
  --tag-output, -l         prefix every output line with "[rank] "
  --timeout SEC            end the job after SEC seconds (exit code 124); just before, ranks waiting in
                           MPI print what they wait for (FABMPI_HANG_REPORT=SEC: after SEC s idle);
                           default: MPIEXEC_TIMEOUT if set
  --trace FILE             write a timeline of every rank's MPI calls to FILE (Chrome trace format: open it
                           in ui.perfetto.dev or chrome://tracing); ranks write theirs at MPI_Finalize
  --bind-to core|none      bind each rank to one core (round robin over the node's cores) or not (default)
  --report-bindings        print each rank's binding on stderr
  --wdir, -wdir, -wd DIR   working directory of the ranks
  --oversubscribe          accepted; more ranks than cores are always allowed
  --help-params            list every FABMPI_* tunable with its type, default and meaning
  -h, --help               this text
  -V, --version            print the version
  --                       end of mpirun options; the program and its arguments follow

Standard input goes to rank 0; the others read /dev/null. Output is forwarded line by line.
Exit status: 0 when every rank exits 0; the first failing rank's exit code; 128+N when a rank is
killed by signal N; the MPI_Abort error code; 124 on --timeout; 127 when the program cannot run.
)";
}

}  // namespace fabmpi::launcher
