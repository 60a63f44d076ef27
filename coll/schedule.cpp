#include "coll/schedule.hpp"

namespace fabmpi::coll {

bool Schedule::progress() {
  while (!done_) {
    for (const RequestRef& request : batch_)
      if (!request->is_complete()) return false;
    for (const RequestRef& request : batch_)
      if (request->error != MPI_SUCCESS && error_.ok())
        error_ = fail(request->error, "a collective's point-to-point step failed (error %d)", request->error);
    batch_.clear();
    if (!error_.ok()) {
      done_ = true;
      break;
    }
    done_ = step();
    if (!error_.ok() && !batch_.empty()) {
      // Posting failed part-way: let what was posted finish before reporting (buffers stay alive).
      done_ = false;
      bool all = true;
      for (const RequestRef& request : batch_) all = all && request->is_complete();
      if (!all) return false;
      batch_.clear();
      done_ = true;
    }
  }
  return true;
}

void Schedule::send(const void* buf, std::size_t bytes, int vpeer) {
  if (!error_.ok()) return;
  RequestRef request;
  Rc rc = ctx_.transport->isend(buf, bytes, real_rank(vpeer), ctx_.tag, &request);
  if (!rc.ok()) {
    error_ = rc;
    return;
  }
  batch_.push_back(std::move(request));
}

void Schedule::recv(void* buf, std::size_t bytes, int vpeer) {
  if (!error_.ok()) return;
  RequestRef request;
  Rc rc = ctx_.transport->irecv(buf, bytes, real_rank(vpeer), ctx_.tag, &request);
  if (!rc.ok()) {
    error_ = rc;
    return;
  }
  batch_.push_back(std::move(request));
}

bool Schedule::fail_with(Rc rc) {
  error_ = rc;
  return true;
}

void Schedule::reduce_ordered(const Reducer& r, void* peer, void* inout, std::size_t count,
                              std::size_t elem_size, bool peer_is_lower) {
  if (count == 0) return;
  if (peer_is_lower || r.commutative()) {
    r.reduce(peer, inout, count);
  } else {
    r.reduce(inout, peer, count);
    copy_bytes(inout, peer, count * elem_size);
  }
}

bool Sequence::progress() {
  while (current_ < parts_.size()) {
    if (!parts_[current_]->progress()) return false;
    Rc rc = parts_[current_]->error();
    if (!rc.ok()) {
      error_ = rc;
      return true;
    }
    ++current_;
  }
  return true;
}

}  // namespace fabmpi::coll
