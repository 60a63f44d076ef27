#include "common/pmi_wire.hpp"

#include <charconv>

namespace fabmpi::pmi {
namespace {

const std::string kEmpty;

bool parse_decimal(std::string_view text, long long* out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

const std::string& Message::cmd() const { return fields_.empty() ? kEmpty : fields_.front().second; }

const std::string* Message::find(std::string_view key) const {
  for (const auto& [k, v] : fields_)
    if (k == key) return &v;
  return nullptr;
}

bool Message::find_int(std::string_view key, long long* out) const {
  const std::string* v = find(key);
  return v != nullptr && parse_decimal(*v, out);
}

bool parse_line(std::string_view line, Message* out, std::string* error) {
  *out = Message();
  if (line.size() > kMaxLineBytes) {
    *error = "line of " + std::to_string(line.size()) + " bytes exceeds " + std::to_string(kMaxLineBytes);
    return false;
  }
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.find('\n') != std::string_view::npos || line.find('\0') != std::string_view::npos) {
    *error = "line contains a newline or NUL byte";
    return false;
  }
  std::size_t pos = 0;
  while (pos < line.size()) {
    // Single spaces separate fields; tolerate runs of them.
    if (line[pos] == ' ') { ++pos; continue; }
    std::size_t end = line.find(' ', pos);
    if (end == std::string_view::npos) end = line.size();
    std::string_view token = line.substr(pos, end - pos);
    std::size_t eq = token.find('=');
    if (eq == std::string_view::npos) {
      *error = "field '" + std::string(token.substr(0, 64)) + "' has no '='";
      return false;
    }
    if (eq == 0) {
      *error = "field with an empty key";
      return false;
    }
    out->add(token.substr(0, eq), token.substr(eq + 1));
    pos = end;
  }
  if (out->fields().empty()) {
    *error = "empty line";
    return false;
  }
  if (out->fields().front().first != "cmd") {
    *error = "first field is '" + out->fields().front().first + "', not cmd";
    return false;
  }
  if (out->fields().front().second.empty()) {  // found by the fuzzer: "cmd= k=v" named no command
    *error = "empty cmd";
    return false;
  }
  return true;
}

std::string encode(const Message& message) {
  std::string line;
  for (const auto& [k, v] : message.fields()) {
    if (!line.empty()) line += ' ';
    line += k;
    line += '=';
    line += v;
  }
  line += '\n';
  return line;
}

bool check_encodable(const Message& message, std::string* error) {
  if (message.fields().empty() || message.fields().front().first != "cmd") {
    *error = "message does not start with cmd";
    return false;
  }
  for (const auto& [k, v] : message.fields()) {
    if (k.empty() || k.find_first_of(" =\n\r") != std::string::npos) {
      *error = "key '" + k + "' is empty or contains a space, '=' or newline";
      return false;
    }
    if (v.find_first_of(" \n\r") != std::string::npos) {
      *error = "value of '" + k + "' contains a space or newline";
      return false;
    }
  }
  std::size_t length = encode(message).size();
  if (length > kMaxLineBytes) {
    *error = "line of " + std::to_string(length) + " bytes exceeds " + std::to_string(kMaxLineBytes);
    return false;
  }
  return true;
}

Message request_init() { return Message("init").add("pmi_version", 1).add("pmi_subversion", 1); }
Message request_initack(std::string_view pmi_id) { return Message("initack").add("pmiid", pmi_id); }
Message request_get_maxes() { return Message("get_maxes"); }
Message request_get_appnum() { return Message("get_appnum"); }
Message request_get_my_kvsname() { return Message("get_my_kvsname"); }
Message request_get_universe_size() { return Message("get_universe_size"); }
Message request_put(std::string_view kvsname, std::string_view key, std::string_view value) {
  return Message("put").add("kvsname", kvsname).add("key", key).add("value", value);
}
Message request_get(std::string_view kvsname, std::string_view key) {
  return Message("get").add("kvsname", kvsname).add("key", key);
}
Message request_barrier_in() { return Message("barrier_in"); }
Message request_finalize() { return Message("finalize"); }
Message request_abort(int exit_code) { return Message("abort").add("exitcode", exit_code); }

Message reply_init(bool ok) {
  return Message("response_to_init").add("pmi_version", 1).add("pmi_subversion", 1).add("rc", ok ? 0 : -1);
}
Message reply_maxes() {
  return Message("maxes")
      .add("kvsname_max", static_cast<long long>(kKvsnameMax))
      .add("keylen_max", static_cast<long long>(kKeyMax))
      .add("vallen_max", static_cast<long long>(kValueMax));
}
Message reply_appnum(int appnum) { return Message("appnum").add("appnum", appnum); }
Message reply_my_kvsname(std::string_view kvsname) { return Message("my_kvsname").add("kvsname", kvsname); }
Message reply_universe_size(int size) { return Message("universe_size").add("size", size); }
Message reply_put(bool ok, std::string_view msg) {
  return Message("put_result").add("rc", ok ? 0 : -1).add("msg", sanitize_value(msg));
}
Message reply_get_found(std::string_view value) {
  return Message("get_result").add("rc", 0).add("msg", "success").add("value", value);
}
Message reply_get_missing(std::string_view key) {
  return Message("get_result").add("rc", -1).add("msg", "key_" + sanitize_value(key) + "_not_found")
      .add("value", "unknown");
}
Message reply_barrier_out() { return Message("barrier_out"); }
Message reply_finalize_ack() { return Message("finalize_ack"); }
Message reply_error(std::string_view reason) {
  return Message("error").add("rc", -1).add("msg", sanitize_value(reason));
}

std::string sanitize_value(std::string_view text) {
  std::string out(text.substr(0, 256));
  for (char& c : out)
    if (c == ' ' || c == '=' || c == '\n' || c == '\r' || c == '\0') c = '_';
  return out;
}

std::string hex_encode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

bool hex_decode(std::string_view hex, std::string* out) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2 != 0) return false;
  out->clear();
  out->reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
  }
  return true;
}

std::string value_part_key(std::string_view key, int part) {
  std::string k(key);
  if (part > 0) k += "#" + std::to_string(part);
  return k;
}

std::string value_head(int parts, std::string_view hex) { return std::to_string(parts) + ":" + std::string(hex); }

bool parse_value_head(std::string_view head, int* parts, std::string_view* hex) {
  const std::size_t colon = head.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 6) return false;
  int n = 0;
  for (std::size_t i = 0; i < colon; ++i) {
    if (head[i] < '0' || head[i] > '9') return false;
    n = n * 10 + (head[i] - '0');
  }
  if (n < 1) return false;
  *parts = n;
  *hex = head.substr(colon + 1);
  return true;
}

std::string build_process_mapping(const std::vector<int>& node_of_rank) {
  // Runs of consecutive ranks on one node, then consecutive nodes with equal run lengths merged.
  struct Block { int start, nnodes, ppn; };
  std::vector<Block> blocks;
  std::size_t i = 0;
  while (i < node_of_rank.size()) {
    std::size_t j = i;
    while (j < node_of_rank.size() && node_of_rank[j] == node_of_rank[i]) ++j;
    int node = node_of_rank[i], ppn = static_cast<int>(j - i);
    if (!blocks.empty() && blocks.back().ppn == ppn &&
        blocks.back().start + blocks.back().nnodes == node)
      ++blocks.back().nnodes;
    else
      blocks.push_back({node, 1, ppn});
    i = j;
  }
  std::string out = "(vector";
  for (const Block& b : blocks)
    out += ",(" + std::to_string(b.start) + "," + std::to_string(b.nnodes) + "," + std::to_string(b.ppn) + ")";
  out += ")";
  return out;
}

bool parse_process_mapping(std::string_view mapping, int size, std::vector<int>* node_of_rank) {
  struct Block { long long start, nnodes, ppn; };
  std::vector<Block> blocks;
  std::string_view s = mapping;
  auto eat = [&s](std::string_view prefix) {
    if (s.substr(0, prefix.size()) != prefix) return false;
    s.remove_prefix(prefix.size());
    return true;
  };
  auto number = [&s](long long* v) {
    std::size_t n = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
    if (n == 0 || n > 9 || !parse_decimal(s.substr(0, n), v)) return false;
    s.remove_prefix(n);
    return true;
  };
  if (!eat("(vector")) return false;
  while (eat(",(")) {
    Block b{};
    if (!number(&b.start) || !eat(",") || !number(&b.nnodes) || !eat(",") || !number(&b.ppn) || !eat(")"))
      return false;
    blocks.push_back(b);
  }
  if (!eat(")") || !s.empty() || blocks.empty() || size < 0) return false;
  node_of_rank->assign(static_cast<std::size_t>(size), 0);
  int rank = 0;
  while (rank < size) {
    int before = rank;
    for (const Block& b : blocks)
      for (long long node = b.start; node < b.start + b.nnodes && rank < size; ++node)
        for (long long k = 0; k < b.ppn && rank < size; ++k) (*node_of_rank)[static_cast<std::size_t>(rank++)] = static_cast<int>(node);
    if (rank == before) return false;  // every block empty: the mapping places nobody
  }
  return true;
}

// ---- spawn: a list of strings, each "<decimal length>:<bytes>"

namespace {
void put_string(std::string* out, std::string_view s) {
  *out += std::to_string(s.size());
  *out += ':';
  out->append(s);
}
bool take_string(std::string_view* in, std::string* out) {
  const std::size_t colon = in->find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 9) return false;
  std::size_t n = 0;
  for (std::size_t i = 0; i < colon; ++i) {
    if ((*in)[i] < '0' || (*in)[i] > '9') return false;
    n = n * 10 + static_cast<std::size_t>((*in)[i] - '0');
  }
  if (in->size() - colon - 1 < n) return false;
  out->assign(in->substr(colon + 1, n));
  in->remove_prefix(colon + 1 + n);
  return true;
}
bool take_count(std::string_view* in, std::size_t limit, std::size_t* out) {
  std::string text;
  if (!take_string(in, &text) || text.empty() || text.size() > 9) return false;
  std::size_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  if (n > limit) return false;
  *out = n;
  return true;
}
}  // namespace

std::string encode_spawn(const SpawnRequest& request) {
  std::string out;
  put_string(&out, std::to_string(request.commands.size()));
  for (const SpawnCommand& c : request.commands) {
    put_string(&out, c.program);
    put_string(&out, std::to_string(c.args.size()));
    for (const std::string& a : c.args) put_string(&out, a);
    put_string(&out, std::to_string(c.maxprocs));
    put_string(&out, c.wdir);
  }
  put_string(&out, std::to_string(request.preput.size()));
  for (const auto& [key, value] : request.preput) {
    put_string(&out, key);
    put_string(&out, value);
  }
  return out;
}

bool decode_spawn(std::string_view in, SpawnRequest* out) {
  *out = SpawnRequest{};
  std::size_t commands = 0;
  if (!take_count(&in, 4096, &commands) || commands == 0) return false;
  for (std::size_t i = 0; i < commands; ++i) {
    SpawnCommand c;
    std::size_t args = 0, maxprocs = 0;
    if (!take_string(&in, &c.program) || c.program.empty() || !take_count(&in, 1 << 16, &args)) return false;
    c.args.resize(args);
    for (std::string& a : c.args)
      if (!take_string(&in, &a)) return false;
    if (!take_count(&in, 1 << 20, &maxprocs) || maxprocs == 0 || !take_string(&in, &c.wdir)) return false;
    c.maxprocs = static_cast<int>(maxprocs);
    out->commands.push_back(std::move(c));
  }
  std::size_t preput = 0;
  if (!take_count(&in, 4096, &preput)) return false;
  for (std::size_t i = 0; i < preput; ++i) {
    std::string key, value;
    if (!take_string(&in, &key) || !take_string(&in, &value)) return false;
    out->preput.emplace_back(std::move(key), std::move(value));
  }
  return in.empty();
}

std::vector<Message> spawn_request_lines(const SpawnRequest& request) {
  const std::string hex = hex_encode(encode_spawn(request));
  constexpr std::size_t kChunk = 896;  // hex digits per line, well within kMaxLineBytes
  std::vector<Message> lines;
  for (std::size_t at = 0; at < hex.size(); at += kChunk)
    lines.push_back(Message("fabmpi_spawn_part").add("data", std::string_view(hex).substr(at, kChunk)));
  lines.push_back(Message("fabmpi_spawn_end"));
  return lines;
}

Message reply_spawn_ok(int base, int size, std::string_view kvsname) {
  return Message("fabmpi_spawn_result").add("rc", 0).add("base", base).add("size", size).add("kvsname", kvsname);
}

Message reply_spawn_failed(std::string_view reason) {
  return Message("fabmpi_spawn_result").add("rc", -1).add("msg", sanitize_value(reason));
}

}  // namespace fabmpi::pmi
