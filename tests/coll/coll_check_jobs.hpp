// The jobs of coll_check.cpp, one class per family of collectives, and the case list per collective.
#pragma once

namespace {

// alltoallw: per-block types, all with an 8-byte extent (double or resized int); both sides agree.
const Type& type_for_block(int s, int d) { return kTypes[(s + d) % 2 == 0 ? 1 : 2]; }

struct BarrierJob final : Job {
  void start(MPI_Comm comm, MPI_Request* req) override { req ? MPI_Ibarrier(comm, req) : MPI_Barrier(comm); }
  void check() override {}
};

struct BcastJob final : Job {
  BcastJob(const Type& t, std::size_t n, int root) : t(t), n(n), root(root), buf(t.make(n)) {
    if (rank_ == root) for (std::size_t i = 0; i < n; ++i) t.set(buf, i, value(root, i));
  }
  void start(MPI_Comm comm, MPI_Request* req) override {
    if (req) MPI_Ibcast(buf.data(), static_cast<int>(n), *t.dt, root, comm, req);
    else MPI_Bcast(buf.data(), static_cast<int>(n), *t.dt, root, comm);
  }
  void check() override {
    for (std::size_t i = 0; i < n; ++i)
      if (t.get(buf, i) != value(root, i)) report("bcast", static_cast<long long>(i), t.get(buf, i), value(root, i));
  }
  const Type& t;
  std::size_t n;
  int root;
  std::vector<char> buf;
};

enum class Red { reduce, allreduce, scan, exscan };

// SUM over one of kTypes, or the affine op (t == nullptr).
struct ReduceJob final : Job {
  ReduceJob(Red kind, const Type* t, std::size_t n, int root, bool in_place)
      : kind(kind), t(t), n(n), root(root), in_place(in_place && (kind != Red::reduce || rank_ == root)) {
    send = make();
    recv = make();
    for (std::size_t i = 0; i < n; ++i) put(this->in_place ? recv : send, i, rank_);
  }
  std::vector<char> make() const { return t ? t->make(n) : std::vector<char>((n + 1) * 16, 0x5a); }
  void put(std::vector<char>& b, std::size_t i, int r) const {
    if (t) { t->set(b, i, value(r, i)); return; }
    unsigned long long v[2];
    affine_value(r, i, v);
    std::memcpy(b.data() + i * 16, v, 16);
  }
  void start(MPI_Comm comm, MPI_Request* req) override {
    const void* sb = in_place ? MPI_IN_PLACE : send.data();
    const MPI_Datatype dt = t ? *t->dt : affine_type;
    const MPI_Op op = t ? MPI_SUM : affine_op;
    const int c = static_cast<int>(n);
    switch (kind) {
      case Red::reduce: req ? MPI_Ireduce(sb, recv.data(), c, dt, op, root, comm, req) : MPI_Reduce(sb, recv.data(), c, dt, op, root, comm); break;
      case Red::allreduce: req ? MPI_Iallreduce(sb, recv.data(), c, dt, op, comm, req) : MPI_Allreduce(sb, recv.data(), c, dt, op, comm); break;
      case Red::scan: req ? MPI_Iscan(sb, recv.data(), c, dt, op, comm, req) : MPI_Scan(sb, recv.data(), c, dt, op, comm); break;
      case Red::exscan: req ? MPI_Iexscan(sb, recv.data(), c, dt, op, comm, req) : MPI_Exscan(sb, recv.data(), c, dt, op, comm); break;
    }
  }
  void check() override {
    int last = size_ - 1;
    if (kind == Red::reduce && rank_ != root) return;
    if (kind == Red::scan) last = rank_;
    if (kind == Red::exscan) {
      if (rank_ == 0) return;
      last = rank_ - 1;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (t) {
        long long want = 0;
        for (int r = 0; r <= last; ++r) want += value(r, i);
        if (t->get(recv, i) != want) report("sum", static_cast<long long>(i), t->get(recv, i), want);
      } else {
        unsigned long long want[2], got[2];
        affine_prefix(last, i, want);
        std::memcpy(got, recv.data() + i * 16, 16);
        if (got[0] != want[0] || got[1] != want[1]) report("user op in rank order", static_cast<long long>(i), got[1], want[1]);
      }
    }
  }
  Red kind;
  const Type* t;
  std::size_t n;
  int root;
  bool in_place;
  std::vector<char> send, recv;
};

struct ReduceScatterJob final : Job {
  ReduceScatterJob(bool block, const Type& t, std::size_t base, bool in_place)
      : block(block), t(t), in_place(in_place) {
    for (int r = 0; r < size_; ++r) counts.push_back(static_cast<int>(block ? base : base + r % 3));
    for (int c : counts) total += static_cast<std::size_t>(c);
    send = t.make(total);
    recv = t.make(in_place ? total : static_cast<std::size_t>(counts[rank_]));
    for (std::size_t i = 0; i < total; ++i) t.set(in_place ? recv : send, i, value(rank_, i));
  }
  void start(MPI_Comm comm, MPI_Request* req) override {
    const void* sb = in_place ? MPI_IN_PLACE : send.data();
    if (block) req ? MPI_Ireduce_scatter_block(sb, recv.data(), counts[0], *t.dt, MPI_SUM, comm, req)
                   : MPI_Reduce_scatter_block(sb, recv.data(), counts[0], *t.dt, MPI_SUM, comm);
    else req ? MPI_Ireduce_scatter(sb, recv.data(), counts.data(), *t.dt, MPI_SUM, comm, req)
             : MPI_Reduce_scatter(sb, recv.data(), counts.data(), *t.dt, MPI_SUM, comm);
  }
  void check() override {
    std::size_t first = 0;
    for (int r = 0; r < rank_; ++r) first += static_cast<std::size_t>(counts[r]);
    for (int j = 0; j < counts[rank_]; ++j) {
      long long want = 0;
      for (int r = 0; r < size_; ++r) want += value(r, first + static_cast<std::size_t>(j));
      if (t.get(recv, static_cast<std::size_t>(j)) != want) report("reduce_scatter", j, t.get(recv, j), want);
    }
  }
  bool block;
  const Type& t;
  bool in_place;
  std::vector<int> counts;
  std::size_t total = 0;
  std::vector<char> send, recv;
};

// Block layout for the gather family: v = uneven counts, reversed order with a one-element gap.
struct Layout {
  std::vector<int> counts, displs;
  std::size_t span = 0;
  Layout(std::size_t base, bool v) {
    for (int r = 0; r < size_; ++r) counts.push_back(static_cast<int>(v ? (r % 3) * (base / 2 + 1) : base));
    displs.resize(static_cast<std::size_t>(size_));
    for (int k = 0; k < size_; ++k) {
      const int r = v ? size_ - 1 - k : k;
      displs[r] = static_cast<int>(span);
      span += static_cast<std::size_t>(counts[r]) + (v ? 1 : 0);
    }
  }
};

enum class Gat { allgather, gather, scatter };

struct GatherJob final : Job {
  GatherJob(Gat kind, bool v, const Type& t, std::size_t base, int root, bool in_place)
      : kind(kind), v(v), t(t), root(root), layout(base, v) {
    const bool rooted = kind != Gat::allgather;
    this->in_place = in_place && (!rooted || rank_ == root);
    mine = static_cast<std::size_t>(layout.counts[rank_]);
    small = t.make(mine);
    big = t.make(layout.span);
    if (kind == Gat::scatter) {
      if (rank_ == root)
        for (int r = 0; r < size_; ++r)
          for (int i = 0; i < layout.counts[r]; ++i) t.set(big, i, value(r, i), layout.displs[r]);
    } else {
      for (std::size_t i = 0; i < mine; ++i) {
        if (this->in_place) t.set(big, i, value(rank_, i), layout.displs[rank_]);
        else t.set(small, i, value(rank_, i));
      }
    }
  }
  void start(MPI_Comm comm, MPI_Request* req) override {
    const MPI_Datatype dt = *t.dt;
    const int c = layout.counts[rank_], uniform = layout.counts[0];
    const int* rc = layout.counts.data();
    const int* d = layout.displs.data();
    void* s = in_place ? MPI_IN_PLACE : small.data();
    switch (kind) {
      case Gat::allgather:
        if (v) req ? MPI_Iallgatherv(s, c, dt, big.data(), rc, d, dt, comm, req) : MPI_Allgatherv(s, c, dt, big.data(), rc, d, dt, comm);
        else req ? MPI_Iallgather(s, c, dt, big.data(), uniform, dt, comm, req) : MPI_Allgather(s, c, dt, big.data(), uniform, dt, comm);
        break;
      case Gat::gather:
        if (v) req ? MPI_Igatherv(s, c, dt, big.data(), rc, d, dt, root, comm, req) : MPI_Gatherv(s, c, dt, big.data(), rc, d, dt, root, comm);
        else req ? MPI_Igather(s, c, dt, big.data(), uniform, dt, root, comm, req) : MPI_Gather(s, c, dt, big.data(), uniform, dt, root, comm);
        break;
      case Gat::scatter:
        if (v) req ? MPI_Iscatterv(big.data(), rc, d, dt, s, c, dt, root, comm, req) : MPI_Scatterv(big.data(), rc, d, dt, s, c, dt, root, comm);
        else req ? MPI_Iscatter(big.data(), uniform, dt, s, c, dt, root, comm, req) : MPI_Scatter(big.data(), uniform, dt, s, c, dt, root, comm);
        break;
    }
  }
  void check() override {
    if (kind == Gat::scatter) {
      for (std::size_t i = 0; i < mine; ++i) {
        const long long got = in_place ? t.get(big, i, layout.displs[rank_]) : t.get(small, i);
        if (got != value(rank_, i)) report("scatter", static_cast<long long>(i), got, value(rank_, i));
      }
      return;
    }
    if (kind == Gat::gather && rank_ != root) return;
    for (int r = 0; r < size_; ++r)
      for (int i = 0; i < layout.counts[r]; ++i)
        if (t.get(big, i, layout.displs[r]) != value(r, i))
          report("gathered block", static_cast<long long>(r) * 1000000 + i, t.get(big, i, layout.displs[r]), value(r, i));
  }
  Gat kind;
  bool v;
  const Type& t;
  int root;
  Layout layout;
  bool in_place = false;
  std::size_t mine = 0;
  std::vector<char> small, big;
};

enum class A2a { plain, v, w };

struct AlltoallJob final : Job {
  AlltoallJob(A2a kind, const Type& t, std::size_t base, bool in_place) : kind(kind), t(t), in_place(in_place) {
    auto count = [&](int s, int d) { return static_cast<int>(kind == A2a::plain ? base : ((s + d) % 4) * (base / 2) + (s == d)); };
    std::size_t soff = 0, roff = 0;
    for (int q = 0; q < size_; ++q) {
      sc.push_back(count(rank_, q));
      rc.push_back(count(q, rank_));
      st.push_back(kind == A2a::w ? *type_for_block(rank_, q).dt : *t.dt);
      rt.push_back(kind == A2a::w ? *type_for_block(q, rank_).dt : *t.dt);
    }
    // Send blocks in rank order, receive blocks in reverse order; displacements in elements (v) or bytes (w).
    for (int q = 0; q < size_; ++q) {
      sd.push_back(static_cast<int>(kind == A2a::w ? soff * 8 : soff));
      soff += static_cast<std::size_t>(sc[q]) + (kind == A2a::plain ? 0 : 1);
    }
    rd.resize(static_cast<std::size_t>(size_));
    for (int k = 0; k < size_; ++k) {
      const int q = kind == A2a::plain ? k : size_ - 1 - k;
      rd[q] = static_cast<int>(kind == A2a::w ? roff * 8 : roff);
      roff += static_cast<std::size_t>(rc[q]) + (kind == A2a::plain ? 0 : 1);
    }
    // Buffers in units of the widest element extent used (8 bytes) so w and v share the layout code.
    unit = kind == A2a::w ? 8 : t.stride * t.base();
    send.assign((soff + 1) * unit, 0x5a);
    recv.assign((roff + 1) * unit, 0x5a);
    for (int q = 0; q < size_; ++q) {
      auto& target = in_place ? recv : send;
      const std::size_t at = static_cast<std::size_t>(in_place ? rd[q] : sd[q]) / (kind == A2a::w ? 8 : 1);
      for (int i = 0; i < (in_place ? rc[q] : sc[q]); ++i) put(target, at + i, q, value(rank_ * size_ + q, i), rank_);
    }
  }
  const Type& block_type(int s, int d) const { return kind == A2a::w ? type_for_block(s, d) : t; }
  void put(std::vector<char>& b, std::size_t slot, int peer, long long v, int s) {
    const Type& bt = block_type(s == rank_ ? rank_ : peer, s == rank_ ? peer : rank_);
    std::vector<char> tmp(bt.stride * bt.base());
    bt.set(tmp, 0, v);
    std::memcpy(b.data() + slot * unit, tmp.data(), bt.base());
  }
  long long take(const std::vector<char>& b, std::size_t slot, const Type& bt) const {
    std::vector<char> tmp(b.begin() + static_cast<long>(slot * unit), b.begin() + static_cast<long>(slot * unit + bt.base()));
    tmp.resize(bt.stride * bt.base() * 2);
    return bt.get(tmp, 0);
  }
  void start(MPI_Comm comm, MPI_Request* req) override {
    const void* s = in_place ? MPI_IN_PLACE : send.data();
    if (kind == A2a::plain)
      req ? MPI_Ialltoall(s, sc[0], *t.dt, recv.data(), rc[0], *t.dt, comm, req)
          : MPI_Alltoall(s, sc[0], *t.dt, recv.data(), rc[0], *t.dt, comm);
    else if (kind == A2a::v)
      req ? MPI_Ialltoallv(s, sc.data(), sd.data(), *t.dt, recv.data(), rc.data(), rd.data(), *t.dt, comm, req)
          : MPI_Alltoallv(s, sc.data(), sd.data(), *t.dt, recv.data(), rc.data(), rd.data(), *t.dt, comm);
    else
      req ? MPI_Ialltoallw(s, sc.data(), sd.data(), st.data(), recv.data(), rc.data(), rd.data(), rt.data(), comm, req)
          : MPI_Alltoallw(s, sc.data(), sd.data(), st.data(), recv.data(), rc.data(), rd.data(), rt.data(), comm);
  }
  void check() override {
    for (int q = 0; q < size_; ++q) {
      const std::size_t at = static_cast<std::size_t>(rd[q]) / (kind == A2a::w ? 8 : 1);
      const Type& bt = block_type(q, rank_);
      for (int i = 0; i < rc[q]; ++i) {
        const long long want = value(q * size_ + rank_, i), got = take(recv, at + i, bt);
        if (got != want) report("alltoall block", static_cast<long long>(q) * 1000000 + i, got, want);
      }
    }
  }
  A2a kind;
  const Type& t;
  bool in_place;
  std::size_t unit = 0;
  std::vector<int> sc, rc, sd, rd;
  std::vector<MPI_Datatype> st, rt;
  std::vector<char> send, recv;
};

bool add_cases(const std::string& coll, std::size_t large, std::vector<std::pair<std::string, JobFactory>>* cases) {
  const std::size_t per_rank = large / static_cast<std::size_t>(size_) + 1;
  const std::vector<std::size_t> counts = {0, 1, 7, large};
  const std::vector<std::size_t> block_counts = {0, 1, 7, per_rank};
  const std::vector<int> roots = size_ > 1 ? std::vector<int>{0, size_ - 1} : std::vector<int>{0};
  auto add = [&](std::string name, JobFactory f) { cases->push_back({std::move(name), std::move(f)}); };
  auto label = [](const char* what, const Type* t, std::size_t n, int root, bool in_place) {
    return std::string(what) + " type=" + (t ? t->name : "affine user op") + " count=" + std::to_string(n) +
           " root=" + std::to_string(root) + (in_place ? " in place" : "");
  };
  if (coll == "barrier") {
    for (int k = 0; k < 4; ++k) add("barrier", [] { return std::make_unique<BarrierJob>(); });
  } else if (coll == "bcast") {
    for (const Type& t : kTypes)
      for (std::size_t n : counts)
        for (int root : roots) add(label("bcast", &t, n, root, false), [&t, n, root] { return std::make_unique<BcastJob>(t, n, root); });
  } else if (coll == "reduce" || coll == "allreduce" || coll == "scan" || coll == "exscan") {
    const Red kind = coll == "reduce" ? Red::reduce : coll == "allreduce" ? Red::allreduce : coll == "scan" ? Red::scan : Red::exscan;
    std::vector<const Type*> types = {&kTypes[0], &kTypes[1], &kTypes[2], nullptr};
    for (const Type* t : types)
      for (std::size_t n : counts)
        for (int root : (kind == Red::reduce ? roots : std::vector<int>{0}))
          for (bool ip : {false, true})
            add(label(coll.c_str(), t, n, root, ip), [=] { return std::make_unique<ReduceJob>(kind, t, n, root, ip); });
  } else if (coll == "reduce_scatter" || coll == "reduce_scatter_block") {
    for (const Type& t : kTypes)
      for (std::size_t n : block_counts)
        for (bool ip : {false, true})
          add(label(coll.c_str(), &t, n, 0, ip), [&t, n, ip, coll] { return std::make_unique<ReduceScatterJob>(coll == "reduce_scatter_block", t, n, ip); });
  } else if (coll == "allgather" || coll == "allgatherv" || coll == "gather" || coll == "gatherv" || coll == "scatter" ||
             coll == "scatterv") {
    const Gat kind = coll.rfind("allgather", 0) == 0 ? Gat::allgather : coll.rfind("gather", 0) == 0 ? Gat::gather : Gat::scatter;
    const bool v = coll.back() == 'v';
    for (const Type& t : kTypes)
      for (std::size_t n : block_counts)
        for (int root : (kind == Gat::allgather ? std::vector<int>{0} : roots))
          for (bool ip : {false, true})
            add(label(coll.c_str(), &t, n, root, ip), [=, &t] { return std::make_unique<GatherJob>(kind, v, t, n, root, ip); });
  } else if (coll == "alltoall" || coll == "alltoallv" || coll == "alltoallw") {
    const A2a kind = coll == "alltoall" ? A2a::plain : coll == "alltoallv" ? A2a::v : A2a::w;
    const std::size_t per_peer = per_rank / static_cast<std::size_t>(size_) + 1;
    for (const Type& t : kTypes)
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, per_peer})
        for (bool ip : {false, true})
          add(label(coll.c_str(), &t, n, 0, ip), [=, &t] { return std::make_unique<AlltoallJob>(kind, t, n, ip); });
  } else {
    return false;
  }
  return true;
}

}  // namespace
