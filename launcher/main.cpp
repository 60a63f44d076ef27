// mpirun / mpiexec: parse the command line, prepare the job (hosts, environment, bindings, the torchrun
// rendezvous port) and run it. The pieces: args (command line), job (event loop and teardown),
// process (fork/exec and owners), io_forward (line forwarding), pmi_server (PMI-1), binding (hwloc),
// hosts (placement), remote (ranks on other hosts, and the proxy mode `mpirun --fabmpi-proxy`).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/log.hpp"
#include "common/tunables.hpp"
#include "launcher/args.hpp"
#include "launcher/hosts.hpp"
#include "launcher/io_forward.hpp"
#include "launcher/job.hpp"
#include "launcher/remote.hpp"
#include "launcher/trace_merge.hpp"

extern char** environ;

namespace fabmpi::launcher {
namespace {

void say(const std::string& message) { write_all(2, "mpirun: " + message + "\n"); }

const char* type_name(TunableType type) {
  switch (type) {
    case TunableType::Bool: return "bool";
    case TunableType::Int: return "int";
    case TunableType::Size: return "size";
    case TunableType::String: return "string";
  }
  return "?";
}

std::string help_params_text() {
  std::string out = "fabmpi tunables (environment variables; pass them with -x NAME=VALUE or export them):\n";
  for (const TunableSpec& spec : tunable_specs()) {
    char line[1024];
    std::snprintf(line, sizeof line, "  %-28s %-6s default=%-10s [%s] %s\n", spec.env_name, type_name(spec.type),
                  (*spec.default_value ? spec.default_value : "\"\""), spec.subsystem, spec.help);
    out += line;
  }
  return out;
}

// A TCP port that is free now on this host (torchrun's MASTER_PORT); 0 if none could be found.
int find_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

bool is_this_host(const std::string& name) {
  if (name == "localhost" || name == "127.0.0.1" || name == "::1" || name == "localhost.localdomain") return true;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  std::string full = host;
  std::string shortname = full.substr(0, full.find('.'));
  return name == full || name == shortname;
}

// Makes sure descriptors 0-2 exist, so no pipe or socket of ours lands on them.
void ensure_standard_fds() {
  for (int fd = 0; fd < 3; ++fd)
    if (::fcntl(fd, F_GETFD) < 0) ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

std::vector<std::string> build_base_env(const Options& options) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
  for (const auto& setting : options.env) {
    std::string value;
    if (setting.value) {
      value = *setting.value;
    } else if (const char* own = env_lookup(setting.name.c_str())) {
      value = own;
    } else {
      say("-x " + setting.name + ": not set in mpirun's environment; not passed");
      continue;
    }
    std::string prefix = setting.name + "=";
    std::erase_if(env, [&prefix](const std::string& x) { return x.rfind(prefix, 0) == 0; });
    env.push_back(prefix + value);
  }
  return env;
}

std::string this_host_name() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

std::vector<std::string> split_words(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

std::string own_path(const char* argv0) {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n > 0) return std::string(path, static_cast<std::size_t>(n));
  return argv0;
}

int mpirun_main(int argc, char** argv) {
  ensure_standard_fds();
  if (argc > 1 && std::strcmp(argv[1], "--fabmpi-proxy") == 0)
    return proxy_main(std::vector<std::string>(argv + 2, argv + argc));
  std::string tunable_error;
  Tunables tunables = Tunables::from_environment(&tunable_error);
  std::string log_error;
  log::configure(log::parse_config(tunables.log, tunables.log_subsys, &log_error));
  if (!tunable_error.empty()) say(tunable_error);
  if (!log_error.empty()) say(log_error);

  ParseResult parsed = parse_args(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.ok()) {
    say(parsed.error);
    return 1;
  }
  const Options& options = parsed.options;
  if (options.help) {
    write_all(1, usage_text());
    return 0;
  }
  if (options.help_params) {
    write_all(1, help_params_text());
    return 0;
  }
  if (options.version) {
    write_all(1, "mpirun (fabmpi) " FABMPI_VERSION "\n");
    return 0;
  }

  // Hosts: this machine unless --host/--hostfile name others.
  std::vector<HostSlot> hosts;
  if (!options.hostfile.empty()) {
    std::ifstream file(options.hostfile);
    if (!file) {
      say("cannot read hostfile '" + options.hostfile + "': " + std::strerror(errno));
      return 1;
    }
    std::stringstream text;
    text << file.rdbuf();
    std::string error;
    if (!parse_hostfile(text.str(), &hosts, &error)) {
      say(options.hostfile + ": " + error);
      return 1;
    }
  }
  for (const auto& h : options.hosts) {
    HostSlot host;
    std::string error;
    if (!parse_host_spec(h, &host, &error)) {
      say("--host: " + error);
      return 1;
    }
    hosts.push_back(host);
  }
  // Inside a Slurm allocation (salloc, sbatch) with no hosts named: the allocation's nodes and task counts.
  bool in_slurm = false;
  if (hosts.empty()) {
    hosts = slurm_allocation([](const char* name) { return env_lookup(name); });
    in_slurm = !hosts.empty();
  }
  int slots = 0;
  for (const auto& h : hosts) slots += h.slots;

  JobConfig config;
  config.np = options.np > 0 ? options.np : (slots > 0 ? slots : 1);
  config.program = options.program;
  config.base_env = build_base_env(options);
  const Placement placement = place_ranks(hosts, config.np, is_this_host);
  config.node_of_rank = placement.node_of_rank;
  config.host_of_rank = placement.host_of_rank;
  config.launcher_address = tunables.launcher_addr.empty() ? this_host_name() : tunables.launcher_addr;
  config.wdir = options.wdir;
  config.tag_output = options.tag_output;
  config.timeout_seconds = options.timeout_seconds;
  // MPIEXEC_TIMEOUT is what MPICH's mpiexec and Open MPI's mpirun both read (test harnesses such as
  // MPICH's runtests set it per test); --timeout on the command line wins.
  if (config.timeout_seconds == 0) {
    if (const char* text = env_lookup("MPIEXEC_TIMEOUT"); text && *text) {
      std::string error;
      if (!parse_timeout_env(text, &config.timeout_seconds, &error)) {
        say(error);
        return 1;
      }
    }
  }
  config.abort_timeout_seconds = static_cast<int>(tunables.abort_timeout);
  config.report_bindings = options.report_bindings;
  if (options.bind_to == BindTo::core) {
    std::string error;
    if (!load_core_bindings(&config.bindings, &error)) {
      say("--bind-to core: " + error);
      return 1;
    }
  }
  // torch.distributed's rendezvous runs on rank 0's host.
  config.master_addr = !tunables.launcher_master_addr.empty() ? tunables.launcher_master_addr
                       : !placement.host_of_rank.empty() && !placement.host_of_rank[0].empty() ? placement.host_of_rank[0]
                       : placement.any_remote() ? config.launcher_address
                                                : "127.0.0.1";
  config.master_port = find_free_port();
  config.kvsname = "fabmpi_kvs_" + std::to_string(::getpid());

  // --trace: the ranks write their timelines into a private directory; merged after the job.
  std::string trace_dir;
  if (!options.trace_file.empty()) {
    char dir_template[] = "/tmp/fabmpi-trace.XXXXXX";
    if (!::mkdtemp(dir_template)) {
      say(std::string("--trace: cannot create a directory in /tmp: ") + std::strerror(errno));
      return 1;
    }
    trace_dir = dir_template;
    const std::string setting = "FABMPI_TRACE=" + trace_dir + "/rank";
    auto& env = config.base_env;
    std::erase_if(env, [](const std::string& e) { return e.rfind("FABMPI_TRACE=", 0) == 0; });
    env.push_back(setting);
  }

  block_job_signals();
  LocalLauncher launcher;
  std::unique_ptr<RemoteLauncher> remote;
  if (placement.any_remote()) {
    // In a Slurm allocation the ranks start through srun unless an agent was chosen.
    std::string agent_text = options.launch_agent;
    if (agent_text.empty() && in_slurm && !env_lookup("FABMPI_LAUNCH_AGENT"))
      agent_text = "srun --nodes=1 --ntasks=1 --overlap --nodelist={host} sh -c";
    if (agent_text.empty()) agent_text = tunables.launch_agent;
    const std::vector<std::string> agent = split_words(agent_text);
    if (agent.empty()) {
      say("the launch agent is empty (--launch-agent / FABMPI_LAUNCH_AGENT)");
      return 1;
    }
    std::vector<std::string> own_env;
    for (char** e = environ; e && *e; ++e) own_env.emplace_back(*e);
    remote = std::make_unique<RemoteLauncher>(agent, own_path(argv[0]), std::move(own_env));
  }
  const int status = run_job(config, launcher, remote.get());
  if (!trace_dir.empty()) {
    std::vector<int> missing;
    std::string error;
    if (!merge_rank_traces(trace_dir + "/rank", config.np, options.trace_file, &missing, &error))
      say("--trace: " + error);
    else if (!missing.empty())
      say("--trace: " + std::to_string(missing.size()) + " of " + std::to_string(config.np) +
          " ranks wrote no timeline (they did not reach MPI_Finalize), first: rank " + std::to_string(missing[0]) +
          "; " + options.trace_file + " holds the others");
    ::rmdir(trace_dir.c_str());
  }
  return status;
}

}  // namespace
}  // namespace fabmpi::launcher

int main(int argc, char** argv) { return fabmpi::launcher::mpirun_main(argc, argv); }
