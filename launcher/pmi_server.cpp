#include "launcher/pmi_server.hpp"

namespace fabmpi::launcher {

PmiServer::PmiServer(PmiServerConfig config) : config_(std::move(config)) {
  if (config_.size < 1) config_.size = 1;
  if (config_.node_of_rank.size() != static_cast<std::size_t>(config_.size))
    config_.node_of_rank.assign(static_cast<std::size_t>(config_.size), 0);
  ranks_.resize(static_cast<std::size_t>(config_.size));
  for (int r = 0; r < config_.size; ++r) ranks_[static_cast<std::size_t>(r)].job_rank = r;
  Job& first = jobs_.emplace_back();
  first.size = config_.size;
  first.kvsname = config_.kvsname;
  first.kvs["PMI_process_mapping"] = pmi::build_process_mapping(config_.node_of_rank);
  first.kvs["fabmpi-universe-base"] = "0";  // also tells the library this launcher can spawn
}

int PmiServer::add_job(int size, const std::string& kvsname, const std::vector<int>& appnum_of_rank,
                       const std::vector<std::pair<std::string, std::string>>& preput) {
  const int base = static_cast<int>(ranks_.size());
  const int job_index = static_cast<int>(jobs_.size());
  Job& job = jobs_.emplace_back();
  job.base = base;
  job.size = size;
  job.kvsname = kvsname;
  // Spawned processes run on mpirun's node: one node.
  job.kvs["PMI_process_mapping"] = pmi::build_process_mapping(std::vector<int>(static_cast<std::size_t>(size), 0));
  job.kvs["fabmpi-universe-base"] = std::to_string(base);
  for (const auto& [key, value] : preput) job.kvs[key] = value;
  for (int r = 0; r < size; ++r) {
    RankState& st = ranks_.emplace_back();
    st.job = job_index;
    st.job_rank = r;
    st.appnum = r < static_cast<int>(appnum_of_rank.size()) ? appnum_of_rank[static_cast<std::size_t>(r)] : 0;
  }
  return base;
}

void PmiServer::answer_spawn(int rank, bool ok, int base, int size, const std::string& kvsname,
                             const std::string& reason, PmiActions* actions) {
  if (mutable_state(rank) == nullptr) return;
  reply(rank, ok ? pmi::reply_spawn_ok(base, size, kvsname) : pmi::reply_spawn_failed(reason), actions);
}

PmiServer::Job* PmiServer::job_named(const std::string* kvsname, int asking_rank) {
  if (kvsname == nullptr) return &jobs_[static_cast<std::size_t>(state(asking_rank).job)];
  for (Job& job : jobs_)
    if (job.kvsname == *kvsname) return &job;
  return nullptr;
}

const PmiServer::RankState& PmiServer::state(int rank) const {
  static const RankState kNone{.connected = false};
  if (rank < 0 || rank >= static_cast<int>(ranks_.size())) return kNone;
  return ranks_[static_cast<std::size_t>(rank)];
}

PmiServer::RankState* PmiServer::mutable_state(int rank) {
  if (rank < 0 || rank >= static_cast<int>(ranks_.size())) return nullptr;
  return &ranks_[static_cast<std::size_t>(rank)];
}

void PmiServer::feed(int rank, std::string_view bytes, PmiActions* actions) {
  RankState* st = mutable_state(rank);
  if (st == nullptr || st->dropped || !st->connected) return;
  st->pending.append(bytes);
  std::size_t start = 0;
  while (!st->dropped) {
    std::size_t nl = st->pending.find('\n', start);
    if (nl == std::string::npos) break;
    if (nl + 1 - start > pmi::kMaxLineBytes) {
      drop(rank, "line of " + std::to_string(nl + 1 - start) + " bytes exceeds " +
                     std::to_string(pmi::kMaxLineBytes), actions);
      return;
    }
    serve_line(rank, std::string_view(st->pending).substr(start, nl + 1 - start), actions);
    start = nl + 1;
  }
  if (st->dropped) return;
  st->pending.erase(0, start);
  // An incomplete line already longer than any valid one will never become valid.
  if (st->pending.size() > pmi::kMaxLineBytes)
    drop(rank, "incomplete line of more than " + std::to_string(pmi::kMaxLineBytes) + " bytes", actions);
}

void PmiServer::disconnect(int rank, PmiActions* actions) {
  RankState* st = mutable_state(rank);
  if (st == nullptr || !st->connected) return;
  st->connected = false;
  st->pending.clear();
  if (st->in_barrier) {
    st->in_barrier = false;
    --jobs_[static_cast<std::size_t>(st->job)].in_barrier;
  }
  (void)actions;
}

void PmiServer::serve_line(int rank, std::string_view line, PmiActions* actions) {
  ranks_[static_cast<std::size_t>(rank)].spoke = true;
  pmi::Message request;
  std::string error;
  if (!pmi::parse_line(line, &request, &error)) {
    actions->diagnostics.push_back("rank " + std::to_string(rank) + ": malformed PMI request: " + error);
    reply(rank, pmi::reply_error("malformed request: " + error), actions);
    return;
  }
  serve(rank, request, actions);
}

void PmiServer::serve(int rank, const pmi::Message& request, PmiActions* actions) {
  RankState& st = ranks_[static_cast<std::size_t>(rank)];
  Job& own = jobs_[static_cast<std::size_t>(st.job)];
  const std::string& cmd = request.cmd();
  if (cmd == "init") {
    long long version = 0;
    bool ok = request.find_int("pmi_version", &version) && version == 1;
    st.initialized = st.initialized || ok;
    if (!ok) actions->diagnostics.push_back("rank " + std::to_string(rank) + ": unsupported PMI version");
    reply(rank, pmi::reply_init(ok), actions);
  } else if (cmd == "get_maxes") {
    reply(rank, pmi::reply_maxes(), actions);
  } else if (cmd == "get_appnum") {
    reply(rank, pmi::reply_appnum(st.appnum), actions);
  } else if (cmd == "get_my_kvsname") {
    reply(rank, pmi::reply_my_kvsname(own.kvsname), actions);
  } else if (cmd == "get_universe_size") {
    reply(rank, pmi::reply_universe_size(config_.universe_size), actions);
  } else if (cmd == "put") {
    const std::string* kvsname = request.find("kvsname");
    const std::string* key = request.find("key");
    const std::string* value = request.find("value");
    if (key == nullptr || value == nullptr) {
      reply(rank, pmi::reply_put(false, "put needs key and value"), actions);
    } else if (kvsname != nullptr && *kvsname != own.kvsname) {
      reply(rank, pmi::reply_put(false, "unknown kvsname " + *kvsname), actions);
    } else if (key->empty() || key->size() > pmi::kKeyMax) {
      reply(rank, pmi::reply_put(false, "key length must be 1.." + std::to_string(pmi::kKeyMax)), actions);
    } else if (value->size() > pmi::kValueMax) {
      reply(rank, pmi::reply_put(false, "value longer than " + std::to_string(pmi::kValueMax)), actions);
    } else {
      own.kvs[*key] = *value;
      reply(rank, pmi::reply_put(true, "success"), actions);
    }
  } else if (cmd == "get") {
    const std::string* kvsname = request.find("kvsname");
    const std::string* key = request.find("key");
    if (key == nullptr) {
      reply(rank, pmi::reply_get_missing(""), actions);
      return;
    }
    // The named space first; then the other jobs' for what is shared across them: endpoint addresses
    // (their keys carry universe indices, so they are unique) and published names (MPI_Publish_name).
    Job* named = job_named(kvsname, rank);
    const std::string* found = nullptr;
    if (named == nullptr) {
      reply(rank, pmi::reply_get_missing(*key), actions);
      return;
    }
    if (auto it = named->kvs.find(*key); it != named->kvs.end()) found = &it->second;
    for (std::size_t j = 0; !found && jobs_.size() > 1 && j < jobs_.size(); ++j)
      if (auto it = jobs_[j].kvs.find(*key);
          it != jobs_[j].kvs.end() && (key->starts_with("fabmpi-ep-") || key->starts_with("fabmpi-nm-")))
        found = &it->second;
    if (found) reply(rank, pmi::reply_get_found(*found), actions);
    else reply(rank, pmi::reply_get_missing(*key), actions);
  } else if (cmd == "barrier_in") {
    if (st.in_barrier) {
      reply(rank, pmi::reply_error("barrier_in while already in the barrier"), actions);
      return;
    }
    st.in_barrier = true;
    ++own.in_barrier;
    release_barrier_if_complete(st.job, actions);
  } else if (cmd == "finalize") {
    st.finalized = true;
    reply(rank, pmi::reply_finalize_ack(), actions);
  } else if (cmd == "fabmpi_spawn_part") {
    const std::string* data = request.find("data");
    if (data == nullptr || st.spawn_data.size() + data->size() > (std::size_t{1} << 24)) {
      st.spawn_data.clear();
      reply(rank, pmi::reply_spawn_failed(data ? "spawn request too large" : "spawn part without data"), actions);
    } else {
      st.spawn_data += *data;  // no reply: the end line is answered
    }
  } else if (cmd == "fabmpi_spawn_end") {
    std::string bytes;
    PmiActions::Spawn spawn{rank, {}};
    const bool ok = pmi::hex_decode(st.spawn_data, &bytes) && pmi::decode_spawn(bytes, &spawn.request);
    st.spawn_data.clear();
    if (!ok) reply(rank, pmi::reply_spawn_failed("malformed spawn request"), actions);
    else if (actions->spawn) reply(rank, pmi::reply_spawn_failed("another spawn is being served"), actions);
    else actions->spawn = std::move(spawn);
  } else if (cmd == "abort") {
    long long code = 1;
    if (!request.find_int("exitcode", &code)) code = 1;
    if (!actions->abort) actions->abort = PmiActions::Abort{rank, static_cast<int>(code)};
  } else {
    actions->diagnostics.push_back("rank " + std::to_string(rank) + ": unknown PMI command '" +
                                   pmi::sanitize_value(cmd) + "'");
    reply(rank, pmi::reply_error("unknown command " + cmd), actions);
  }
}

void PmiServer::release_barrier_if_complete(int job_index, PmiActions* actions) {
  Job& job = jobs_[static_cast<std::size_t>(job_index)];
  if (job.in_barrier < job.size) return;
  for (int r = job.base; r < job.base + job.size; ++r) {
    RankState& st = ranks_[static_cast<std::size_t>(r)];
    st.in_barrier = false;
    if (st.connected && !st.dropped) reply(r, pmi::reply_barrier_out(), actions);
  }
  job.in_barrier = 0;
}

void PmiServer::reply(int rank, const pmi::Message& message, PmiActions* actions) {
  actions->replies.push_back({rank, pmi::encode(message)});
}

void PmiServer::drop(int rank, const std::string& reason, PmiActions* actions) {
  RankState& st = ranks_[static_cast<std::size_t>(rank)];
  actions->diagnostics.push_back("rank " + std::to_string(rank) + ": dropping PMI connection: " + reason);
  st.dropped = true;
  actions->drop.push_back(rank);
  disconnect(rank, actions);
}

std::vector<std::string> PmiServer::bootstrap_values_with_prefix(std::string_view prefix) const {
  std::vector<std::string> out;
  for (const Job& job : jobs_) {
    const auto& kvs = job.kvs;
    for (auto it = kvs.lower_bound(prefix); it != kvs.end() && it->first.starts_with(prefix); ++it) {
      if (it->first.find('#') != std::string::npos) continue;  // a continuation part
      int chunks = 0;
      std::string_view first;
      if (!pmi::parse_value_head(it->second, &chunks, &first)) continue;
      std::string hex(first);
      bool complete = true;
      for (int i = 1; i < chunks && complete; ++i) {
        auto part = kvs.find(pmi::value_part_key(it->first, i));
        complete = part != kvs.end();
        if (complete) hex += part->second;
      }
      std::string value;
      if (complete && pmi::hex_decode(hex, &value)) out.push_back(std::move(value));
    }
  }
  return out;
}

}  // namespace fabmpi::launcher
