// The library's PMI-1 client: a Bootstrap over the "simple PMI" wire protocol (common/pmi_wire.hpp),
// reached through PMI_FD (an inherited socket: fabmpi's mpirun, mpiexec.hydra) or PMI_PORT + PMI_ID
// (a TCP connection). Works with any PMI-1 server, so the limits it learns from get_maxes are honoured:
// values are hex-encoded and split over several keys, and keys are checked before anything is sent.
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/log.hpp"
#include "common/pmi_wire.hpp"
#include "common/tunables.hpp"
#include "runtime/bootstrap.hpp"

namespace fabmpi {
namespace {

// A value longer than this (before hex encoding) is refused with a clear reason.
constexpr std::size_t kMaxValueBytes = 1 << 20;
// Chunk keys are "<key>#<i>": the user's key leaves room for the suffix.
constexpr std::size_t kChunkSuffixRoom = 6;

bool parse_int(const char* text, int* out) {
  if (text == nullptr || *text == '\0') return false;
  const char* end = text + std::strlen(text);
  auto [ptr, ec] = std::from_chars(text, end, *out);
  return ec == std::errc() && ptr == end;
}

class Pmi1Bootstrap final : public Bootstrap {
 public:
  ~Pmi1Bootstrap() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Rc connect();

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int appnum() const override { return appnum_; }
  int universe_size() const override { return universe_size_ > 0 ? universe_size_ : size_; }
  Rc put(const std::string& key, const std::string& value) override;
  Rc fence() override;
  Rc get(const std::string& key, std::string* value) override;
  std::vector<int> node_of_rank() override { return node_of_rank_; }
  void abort(int exit_code, const std::string& message) override;
  Rc finalize() override;
  int universe_base() const override { return universe_base_; }
  Rc spawn(const pmi::SpawnRequest& request, const std::vector<std::pair<std::string, std::string>>& preput, int* base,
           int* size) override;

 private:
  Rc connect_port(const char* port, const char* id);
  Rc send(const pmi::Message& message);
  Rc receive(pmi::Message* reply);
  // send + receive; the reply must be `expect` (and rc=0 when it carries one, unless allow_rc_failure).
  Rc call(const pmi::Message& request, const char* expect, pmi::Message* reply, bool allow_rc_failure = false);
  Rc check_key(const std::string& key) const;
  Rc get_raw(const std::string& key, std::string* value, bool* found);

  int fd_ = -1;
  int rank_ = 0;
  int size_ = 1;
  int appnum_ = 0;
  int universe_size_ = 0;
  std::string kvsname_;
  std::size_t keylen_max_ = pmi::kKeyMax;
  std::size_t vallen_max_ = pmi::kValueMax;
  std::vector<int> node_of_rank_;
  int universe_base_ = 0;
  bool fabmpi_launcher_ = false;  // fabmpi's mpirun (it publishes fabmpi-universe-base): it can spawn
  std::string received_;  // bytes after the last reply line
  bool finalized_ = false;
};

Rc Pmi1Bootstrap::send(const pmi::Message& message) {
  std::string error;
  if (!pmi::check_encodable(message, &error)) return fail(MPI_ERR_OTHER, "PMI request not sent: %s", error.c_str());
  const std::string line = pmi::encode(message);
  FABMPI_LOG(trace, pmi, "-> %.*s", static_cast<int>(line.size() - 1), line.data());
  std::string_view rest = line;
  while (!rest.empty()) {
    ssize_t n = ::send(fd_, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = ::write(fd_, rest.data(), rest.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(MPI_ERR_OTHER, "PMI: cannot send '%s' to the launcher: %s", message.cmd().c_str(), std::strerror(errno));
    }
    rest.remove_prefix(static_cast<std::size_t>(n));
  }
  return Rc();
}

Rc Pmi1Bootstrap::receive(pmi::Message* reply) {
  while (true) {
    std::size_t nl = received_.find('\n');
    if (nl != std::string::npos) {
      std::string line = received_.substr(0, nl + 1);
      received_.erase(0, nl + 1);
      FABMPI_LOG(trace, pmi, "<- %.*s", static_cast<int>(line.size() - 1), line.data());
      std::string error;
      if (!pmi::parse_line(line, reply, &error)) return fail(MPI_ERR_OTHER, "PMI: malformed reply from the launcher: %s", error.c_str());
      return Rc();
    }
    if (received_.size() > pmi::kMaxLineBytes)
      return fail(MPI_ERR_OTHER, "PMI: reply from the launcher exceeds %zu bytes", pmi::kMaxLineBytes);
    char buffer[1024];
    ssize_t n = ::read(fd_, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return fail(MPI_ERR_OTHER, "PMI: the launcher closed the connection");
    if (n < 0) return fail(MPI_ERR_OTHER, "PMI: cannot read from the launcher: %s", std::strerror(errno));
    received_.append(buffer, static_cast<std::size_t>(n));
  }
}

Rc Pmi1Bootstrap::call(const pmi::Message& request, const char* expect, pmi::Message* reply, bool allow_rc_failure) {
  FABMPI_TRY(send(request));
  FABMPI_TRY(receive(reply));
  if (reply->cmd() != expect) {
    const std::string* msg = reply->find("msg");
    return fail(MPI_ERR_OTHER, "PMI: '%s' answered with '%s' instead of '%s'%s%s", request.cmd().c_str(),
                reply->cmd().c_str(), expect, msg ? ": " : "", msg ? msg->c_str() : "");
  }
  long long rc = 0;
  if (!allow_rc_failure && reply->find("rc") != nullptr && (!reply->find_int("rc", &rc) || rc != 0)) {
    const std::string* msg = reply->find("msg");
    return fail(MPI_ERR_OTHER, "PMI: '%s' failed: rc=%s %s", request.cmd().c_str(), reply->find("rc")->c_str(),
                msg ? msg->c_str() : "");
  }
  return Rc();
}

Rc Pmi1Bootstrap::connect_port(const char* port_env, const char* id) {
  std::string hostport = port_env;
  auto colon = hostport.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == hostport.size())
    return fail(MPI_ERR_OTHER, "PMI_PORT='%s' is not host:port", port_env);
  std::string host = hostport.substr(0, colon), port = hostport.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int gai = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  if (gai != 0) return fail(MPI_ERR_OTHER, "PMI_PORT='%s': %s", port_env, gai_strerror(gai));
  int last_errno = 0;
  for (addrinfo* a = found; a != nullptr && fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) { last_errno = errno; continue; }
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
      fd_ = fd;
    } else {
      last_errno = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) return fail(MPI_ERR_OTHER, "PMI: cannot connect to PMI_PORT=%s: %s", port_env, std::strerror(last_errno));

  // The server names us: cmd=initack, then cmd=set size=N, rank=R, debug=D.
  pmi::Message reply;
  FABMPI_TRY(call(pmi::request_initack(id), "initack", &reply));
  for (int i = 0; i < 3; ++i) {
    FABMPI_TRY(receive(&reply));
    long long v = 0;
    if (reply.cmd() != "set") return fail(MPI_ERR_OTHER, "PMI: expected 'set' after initack, got '%s'", reply.cmd().c_str());
    if (reply.find_int("size", &v)) size_ = static_cast<int>(v);
    else if (reply.find_int("rank", &v)) rank_ = static_cast<int>(v);
  }
  return Rc();
}

Rc Pmi1Bootstrap::connect() {
  const char* fd_env = env_lookup("PMI_FD");
  if (fd_env != nullptr) {
    if (!parse_int(fd_env, &fd_) || fd_ < 0) return fail(MPI_ERR_OTHER, "PMI_FD='%s' is not a descriptor", fd_env);
    if (!parse_int(env_lookup("PMI_RANK"), &rank_) || !parse_int(env_lookup("PMI_SIZE"), &size_))
      return fail(MPI_ERR_OTHER, "PMI_FD is set but PMI_RANK or PMI_SIZE is missing or not a number");
  } else if (const char* port = env_lookup("PMI_PORT")) {
    const char* id = env_lookup("PMI_ID");
    if (id == nullptr) id = env_lookup("PMI_RANK");
    if (id == nullptr) return fail(MPI_ERR_OTHER, "PMI_PORT is set but PMI_ID is not");
    FABMPI_TRY(connect_port(port, id));
  } else {
    return fail(MPI_ERR_OTHER, "neither PMI_FD nor PMI_PORT is set");
  }
  if (size_ < 1 || rank_ < 0 || rank_ >= size_)
    return fail(MPI_ERR_OTHER, "PMI: rank %d of size %d is out of range", rank_, size_);

  pmi::Message reply;
  FABMPI_TRY(call(pmi::request_init(), "response_to_init", &reply));
  FABMPI_TRY(call(pmi::request_get_maxes(), "maxes", &reply));
  long long v = 0;
  if (reply.find_int("keylen_max", &v) && v > 0) keylen_max_ = std::min<std::size_t>(static_cast<std::size_t>(v), pmi::kKeyMax);
  if (reply.find_int("vallen_max", &v) && v > 0) vallen_max_ = std::min<std::size_t>(static_cast<std::size_t>(v), pmi::kValueMax);
  FABMPI_TRY(call(pmi::request_get_my_kvsname(), "my_kvsname", &reply));
  if (const std::string* name = reply.find("kvsname")) kvsname_ = *name;
  if (kvsname_.empty()) return fail(MPI_ERR_OTHER, "PMI: the launcher gave no kvsname");
  FABMPI_TRY(call(pmi::request_get_appnum(), "appnum", &reply));
  if (reply.find_int("appnum", &v)) appnum_ = static_cast<int>(v);
  FABMPI_TRY(call(pmi::request_get_universe_size(), "universe_size", &reply));
  if (reply.find_int("size", &v)) universe_size_ = static_cast<int>(v);

  std::string mapping;
  bool found = false;
  FABMPI_TRY(get_raw("PMI_process_mapping", &mapping, &found));
  if (!found || !pmi::parse_process_mapping(mapping, size_, &node_of_rank_)) {
    FABMPI_LOG(warn, pmi, "launcher gave no usable PMI_process_mapping ('%s'); assuming one node", mapping.c_str());
    node_of_rank_.assign(static_cast<std::size_t>(size_), 0);
  }
  std::string base;
  FABMPI_TRY(get_raw("fabmpi-universe-base", &base, &found));
  fabmpi_launcher_ = found;
  if (found && (!parse_int(base.c_str(), &universe_base_) || universe_base_ < 0))
    return fail(MPI_ERR_OTHER, "PMI: malformed fabmpi-universe-base '%s'", base.c_str());
  FABMPI_LOG(debug, pmi, "PMI-1: rank %d of %d, kvs %s, mapping %s", rank_, size_, kvsname_.c_str(), mapping.c_str());
  return Rc();
}

Rc Pmi1Bootstrap::check_key(const std::string& key) const {
  const std::size_t max = keylen_max_ - kChunkSuffixRoom;
  if (key.empty() || key.size() > max)
    return fail(MPI_ERR_OTHER, "bootstrap key '%s' has %zu bytes; PMI allows 1 to %zu", key.c_str(), key.size(), max);
  for (char c : key)
    if (c <= ' ' || c == '=' || c == '#' || c > '~')
      return fail(MPI_ERR_OTHER, "bootstrap key '%s' contains a space, '=', '#' or a non-printable byte", key.c_str());
  return Rc();
}

// Layout of a value under key k: k = "<chunks>:<hex chunk 0>", k#1 .. k#(chunks-1) = following hex chunks.
Rc Pmi1Bootstrap::put(const std::string& key, const std::string& value) {
  FABMPI_TRY(check_key(key));
  if (value.size() > kMaxValueBytes)
    return fail(MPI_ERR_OTHER, "bootstrap value for key '%s' has %zu bytes; the PMI bootstrap carries at most %zu",
                key.c_str(), value.size(), kMaxValueBytes);
  const std::string hex = pmi::hex_encode(value);
  // Room in one line: "cmd=put kvsname=K key=k#NNNNN value=" + "NNNNNNN:" header + '\n'.
  const std::size_t overhead = std::strlen("cmd=put kvsname= key= value=\n") + kvsname_.size() + keylen_max_ + 8;
  std::size_t chunk = std::min(vallen_max_ - 8, pmi::kMaxLineBytes - overhead) & ~std::size_t{1};
  if (chunk < 16) return fail(MPI_ERR_OTHER, "PMI: the launcher's limits leave no room for values");
  const std::size_t chunks = std::max<std::size_t>(1, (hex.size() + chunk - 1) / chunk);
  pmi::Message reply;
  for (std::size_t i = 0; i < chunks; ++i) {
    std::string piece = hex.substr(i * chunk, chunk);
    std::string k = pmi::value_part_key(key, static_cast<int>(i));
    std::string v = i == 0 ? pmi::value_head(static_cast<int>(chunks), piece) : piece;
    FABMPI_TRY(call(pmi::request_put(kvsname_, k, v), "put_result", &reply));
  }
  return Rc();
}

Rc Pmi1Bootstrap::get_raw(const std::string& key, std::string* value, bool* found) {
  pmi::Message reply;
  FABMPI_TRY(call(pmi::request_get(kvsname_, key), "get_result", &reply, /*allow_rc_failure=*/true));
  long long rc = -1;
  *found = reply.find_int("rc", &rc) && rc == 0 && reply.find("value") != nullptr;
  if (*found) *value = *reply.find("value");
  return Rc();
}

Rc Pmi1Bootstrap::get(const std::string& key, std::string* value) {
  FABMPI_TRY(check_key(key));
  std::string head;
  bool found = false;
  FABMPI_TRY(get_raw(key, &head, &found));
  if (!found) return fail(MPI_ERR_OTHER, "bootstrap key '%s' not found", key.c_str());
  int chunks = 0;
  std::string_view first;
  if (!pmi::parse_value_head(head, &chunks, &first))
    return fail(MPI_ERR_OTHER, "bootstrap key '%s' holds '%.40s', not a fabmpi value", key.c_str(), head.c_str());
  std::string hex(first);
  for (int i = 1; i < chunks; ++i) {
    std::string piece;
    FABMPI_TRY(get_raw(pmi::value_part_key(key, i), &piece, &found));
    if (!found) return fail(MPI_ERR_OTHER, "bootstrap key '%s': part %d of %d is missing", key.c_str(), i, chunks);
    hex += piece;
  }
  if (!pmi::hex_decode(hex, value)) return fail(MPI_ERR_OTHER, "bootstrap key '%s' holds malformed hex", key.c_str());
  return Rc();
}

Rc Pmi1Bootstrap::spawn(const pmi::SpawnRequest& request, const std::vector<std::pair<std::string, std::string>>& preput,
                         int* base, int* size) {
  if (!fabmpi_launcher_)
    return fail(MPI_ERR_SPAWN, "starting processes needs fabmpi's mpirun (this launcher's PMI cannot spawn)");
  pmi::SpawnRequest full = request;
  // Preput values in the bootstrap's own layout (hex, split over k, k#1, ...), so get() reads them.
  for (const auto& [key, value] : preput) {
    FABMPI_TRY(check_key(key));
    const std::string hex = pmi::hex_encode(value);
    constexpr std::size_t kChunk = 512;
    const std::size_t chunks = std::max<std::size_t>(1, (hex.size() + kChunk - 1) / kChunk);
    for (std::size_t i = 0; i < chunks; ++i) {
      const std::string piece = hex.substr(i * kChunk, kChunk);
      full.preput.emplace_back(pmi::value_part_key(key, static_cast<int>(i)),
                               i == 0 ? pmi::value_head(static_cast<int>(chunks), piece) : piece);
    }
  }
  const std::vector<pmi::Message> lines = pmi::spawn_request_lines(full);
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) FABMPI_TRY(send(lines[i]));
  pmi::Message reply;
  FABMPI_TRY(call(lines.back(), "fabmpi_spawn_result", &reply, /*allow_rc_failure=*/true));
  long long rc = -1, b = 0, n = 0;
  if (!reply.find_int("rc", &rc) || rc != 0) {
    const std::string* msg = reply.find("msg");
    std::string reason = msg ? *msg : "no reason given";
    std::replace(reason.begin(), reason.end(), '_', ' ');
    return fail(MPI_ERR_SPAWN, "mpirun could not start the processes: %s", reason.c_str());
  }
  if (!reply.find_int("base", &b) || !reply.find_int("size", &n) || b < 0 || n < 1)
    return fail(MPI_ERR_SPAWN, "PMI: malformed spawn answer from mpirun");
  *base = static_cast<int>(b);
  *size = static_cast<int>(n);
  return Rc();
}

Rc Pmi1Bootstrap::fence() {
  pmi::Message reply;
  return call(pmi::request_barrier_in(), "barrier_out", &reply);
}

void Pmi1Bootstrap::abort(int exit_code, const std::string& message) {
  if (!message.empty()) FABMPI_LOG(debug, pmi, "abort: %s", message.c_str());
  if (fd_ >= 0 && !finalized_) (void)send(pmi::request_abort(exit_code));
  // The launcher ends the job; leaving now makes sure this rank is gone even if it does not.
  std::_Exit(exit_code);
}

Rc Pmi1Bootstrap::finalize() {
  if (finalized_) return Rc();
  finalized_ = true;
  pmi::Message reply;
  Rc rc = call(pmi::request_finalize(), "finalize_ack", &reply);
  ::close(fd_);
  fd_ = -1;
  return rc;
}

}  // namespace

Rc make_pmi1_bootstrap(std::unique_ptr<Bootstrap>* out) {
  auto bootstrap = std::make_unique<Pmi1Bootstrap>();
  FABMPI_TRY(bootstrap->connect());
  *out = std::move(bootstrap);
  return Rc();
}

}  // namespace fabmpi
