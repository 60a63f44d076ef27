// The PMI-1 wire protocol ("simple PMI"), the one description shared by mpirun's server and the
// library's client. One request or reply per line: space-separated key=value pairs, the first key
// `cmd`, ended by '\n', at most kMaxLineBytes bytes including the '\n'. Values carry no spaces.
// See DESIGN-NOTES §2 for the exchange; the builders below are its vocabulary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabmpi::pmi {

inline constexpr std::size_t kMaxLineBytes = 1024;  // including the trailing '\n'
inline constexpr std::size_t kKvsnameMax = 256;
inline constexpr std::size_t kKeyMax = 64;
inline constexpr std::size_t kValueMax = 1024;

// One line of the protocol, fields in wire order (the first is always `cmd`).
class Message {
 public:
  Message() = default;
  explicit Message(std::string_view cmd) { add("cmd", cmd); }

  Message& add(std::string_view key, std::string_view value) {
    fields_.emplace_back(std::string(key), std::string(value));
    return *this;
  }
  Message& add(std::string_view key, long long value) { return add(key, std::to_string(value)); }

  // "" when the message has no fields.
  const std::string& cmd() const;
  // The value of the first field named key, or nullptr.
  const std::string* find(std::string_view key) const;
  // Like find(), parsed as a decimal integer; false when missing or not a number.
  bool find_int(std::string_view key, long long* out) const;

  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// Parses one line (with or without its trailing '\n'; a '\r' before it is tolerated). On failure
// returns false and says why in *error ("empty line", "field 'x' has no '='", "first field is not cmd",
// "line of N bytes exceeds 1024"...). Never throws on any input.
bool parse_line(std::string_view line, Message* out, std::string* error);

// The wire form, ending in '\n'. Does not check limits: see check_encodable().
std::string encode(const Message& message);
// True when encode(message) is a valid line: no spaces, '=' in keys or newlines anywhere, length within
// kMaxLineBytes. Otherwise *error says which field breaks which rule.
bool check_encodable(const Message& message, std::string* error);

// ---- requests (client -> server)
Message request_init();                    // cmd=init pmi_version=1 pmi_subversion=1
Message request_initack(std::string_view pmi_id);  // PMI_PORT mode: cmd=initack pmiid=ID
Message request_get_maxes();
Message request_get_appnum();
Message request_get_my_kvsname();
Message request_get_universe_size();
Message request_put(std::string_view kvsname, std::string_view key, std::string_view value);
Message request_get(std::string_view kvsname, std::string_view key);
Message request_barrier_in();
Message request_finalize();
Message request_abort(int exit_code);

// ---- replies (server -> client)
Message reply_init(bool ok);               // cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0
Message reply_maxes();
Message reply_appnum(int appnum);
Message reply_my_kvsname(std::string_view kvsname);
Message reply_universe_size(int size);
Message reply_put(bool ok, std::string_view msg);
Message reply_get_found(std::string_view value);
Message reply_get_missing(std::string_view key);  // rc=-1 msg=key_<key>_not_found value=unknown
Message reply_barrier_out();
Message reply_finalize_ack();
// A request the server cannot serve (malformed, unknown command, out of order):
// cmd=error rc=-1 msg=<reason, spaces replaced by '_'>.
Message reply_error(std::string_view reason);

// Replaces spaces and '=' by '_' so free text can travel as a value (error messages).
std::string sanitize_value(std::string_view text);

// Lowercase hex encoding of arbitrary bytes and its inverse (false on odd length or a non-hex digit).
std::string hex_encode(std::string_view bytes);
bool hex_decode(std::string_view hex, std::string* out);

// fabmpi's bootstrap values over PMI-1 (written by runtime/pmi_client.cpp, read back by it and by
// mpirun's cleanup): a value is hex-encoded and split over keys k = "<parts>:<hex>", k#1, k#2, ...
std::string value_part_key(std::string_view key, int part);
std::string value_head(int parts, std::string_view hex);
// Splits a head "<parts>:<hex>"; false if it is not one.
bool parse_value_head(std::string_view head, int* parts, std::string_view* hex);

// PMI_process_mapping: "(vector,(start,nnodes,ppn),...)" <-> node index of every rank.
// build: node_of_rank must list each node's ranks contiguously to compress well; any map is accepted.
std::string build_process_mapping(const std::vector<int>& node_of_rank);
// Fills node_of_rank[0..size) by cycling the blocks as MPICH does. False on a malformed mapping.
bool parse_process_mapping(std::string_view mapping, int size, std::vector<int>* node_of_rank);

// ---- dynamic processes (fabmpi's extension; mpiexec.hydra speaks PMI-1's multi-line spawn instead)
// MPI_Comm_spawn(_multiple) asks mpirun for a new job: the request travels hex-encoded over as many
// lines as it needs (cmd=fabmpi_spawn_part data=<hex> ..., then cmd=fabmpi_spawn_end), and mpirun answers
// cmd=fabmpi_spawn_result rc=0 base=<first universe index> size=<processes> kvsname=<the job's kvs>, or
// rc=-1 msg=<reason>.
struct SpawnCommand {
  std::string program;
  std::vector<std::string> args;  // after the program name
  int maxprocs = 1;
  std::string wdir;  // "" : mpirun's directory
};
struct SpawnRequest {
  std::vector<SpawnCommand> commands;
  // Keys put into the new job's key-value space before it starts (PMI's "preput").
  std::vector<std::pair<std::string, std::string>> preput;
};
std::string encode_spawn(const SpawnRequest& request);
bool decode_spawn(std::string_view bytes, SpawnRequest* out);
// The request lines, each within kMaxLineBytes.
std::vector<Message> spawn_request_lines(const SpawnRequest& request);
Message reply_spawn_ok(int base, int size, std::string_view kvsname);
Message reply_spawn_failed(std::string_view reason);

}  // namespace fabmpi::pmi
