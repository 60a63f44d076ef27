// Derived datatype constructors: each builds a Segment list, then DatatypeBuilder::finish computes the
// bounds (MPI-1 sticky markers, struct alignment padding), true bounds, element type and flattened blocks.
#include <algorithm>
#include <limits>

#include "runtime/datatype.hpp"

namespace fabmpi {

class DatatypeBuilder {
 public:
  DatatypeBuilder(int combiner, std::vector<Segment> segments) : type_(std::make_shared<Datatype>()) {
    type_->contents_.combiner = combiner;
    type_->segments_ = std::move(segments);
  }
  TypeContents& contents() { return type_->contents_; }

  // pad_struct: apply the alignment rule to the extent (MPI_Type_create_struct only).
  std::shared_ptr<Datatype> finish(bool pad_struct) {
    Datatype& t = *type_;
    bool have_lb = false, have_ub = false, have_slb = false, have_sub = false, have_true = false;
    bool have_elem = false;
    MPI_Aint lb = 0, ub = 0, slb = 0, sub = 0, tlb = 0, tub = 0;
    for (const Segment& s : t.segments_) {
      if (s.count == 0) continue;
      const Datatype& c = *s.type;
      const MPI_Aint last = s.disp + static_cast<MPI_Aint>(s.count - 1) * c.extent_;
      const MPI_Aint lo = std::min<MPI_Aint>(s.disp, last), hi = std::max<MPI_Aint>(s.disp, last);
      t.size_ += s.count * c.size_;
      t.basic_count_ += s.count * c.basic_count_;
      t.alignment_ = std::max(t.alignment_, c.alignment_);
      if (c.sticky_lb_) {
        slb = have_slb ? std::min(slb, c.lb_ + lo) : c.lb_ + lo;
        have_slb = true;
      } else if (c.size_ > 0) {
        lb = have_lb ? std::min(lb, c.lb_ + lo) : c.lb_ + lo;
        have_lb = true;
      }
      if (c.sticky_ub_) {
        sub = have_sub ? std::max(sub, c.ub() + hi) : c.ub() + hi;
        have_sub = true;
      } else if (c.size_ > 0) {
        ub = have_ub ? std::max(ub, c.ub() + hi) : c.ub() + hi;
        have_ub = true;
      }
      if (c.size_ > 0) {
        const MPI_Aint clo = c.true_lb_ + lo, chi = c.true_lb_ + c.true_extent_ + hi;
        tlb = have_true ? std::min(tlb, clo) : clo;
        tub = have_true ? std::max(tub, chi) : chi;
        have_true = true;
        if (!have_elem) {
          t.element_type_ = c.element_type_;
          have_elem = true;
        } else if (t.element_type_ != c.element_type_) {
          t.element_type_ = ElementType::none;
        }
      }
    }
    t.sticky_lb_ = have_slb;
    t.sticky_ub_ = have_sub;
    t.lb_ = have_slb ? slb : (have_lb ? lb : 0);
    MPI_Aint upper = have_sub ? sub : (have_ub ? ub : t.lb_);
    if (pad_struct && !have_sub && t.alignment_ > 1) {
      const MPI_Aint extent = upper - t.lb_;
      const auto align = static_cast<MPI_Aint>(t.alignment_);
      if (extent > 0 && extent % align != 0) upper += align - extent % align;
    }
    t.extent_ = upper - t.lb_;
    t.true_lb_ = have_true ? tlb : 0;
    t.true_extent_ = have_true ? tub - tlb : 0;
    flatten();
    return type_;
  }

  // Overrides the bounds as MPI_Type_create_resized does (both become sticky markers).
  std::shared_ptr<Datatype> set_bounds(MPI_Aint lb, MPI_Aint extent) {
    type_->lb_ = lb;
    type_->extent_ = extent;
    type_->sticky_lb_ = type_->sticky_ub_ = true;
    finalize_layout_flags();
    return type_;
  }

  // A type MPI counts as predefined though it is built here (MPI_Type_create_f90_*): never freed.
  void mark_predefined() {
    type_->builtin_ = true;
    type_->committed_ = true;
  }

  // Takes the bounds of `old` unchanged (MPI_Type_dup).
  std::shared_ptr<Datatype> copy_bounds(const Datatype& old) {
    type_->lb_ = old.lb_;
    type_->extent_ = old.extent_;
    type_->sticky_lb_ = old.sticky_lb_;
    type_->sticky_ub_ = old.sticky_ub_;
    finalize_layout_flags();
    return type_;
  }

 private:
  void append(std::int64_t offset, std::size_t length) {
    if (length == 0) return;
    auto& blocks = type_->blocks_;
    if (!blocks.empty()) {
      Block& last = blocks.back();
      if (last.offset + static_cast<std::int64_t>(last.length) == offset) {
        last.length += length;
        return;
      }
    }
    blocks.push_back(Block{offset, length});
  }

  void flatten() {
    for (const Segment& s : type_->segments_) {
      const Datatype& c = *s.type;
      if (s.count == 0 || c.size_ == 0) continue;
      // A child whose elements tile memory (one block as long as its extent) contributes one run.
      if (c.blocks_.size() == 1 && static_cast<MPI_Aint>(c.blocks_[0].length) == c.extent_) {
        append(s.disp + c.blocks_[0].offset, s.count * c.blocks_[0].length);
        continue;
      }
      for (std::size_t k = 0; k < s.count; ++k) {
        const std::int64_t base = s.disp + static_cast<std::int64_t>(k) * c.extent_;
        for (const Block& b : c.blocks_) append(base + b.offset, b.length);
      }
    }
    finalize_layout_flags();
  }

  void finalize_layout_flags() {
    Datatype& t = *type_;
    const auto& blocks = t.blocks_;
    t.block_end_.resize(blocks.size());
    std::size_t sum = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) t.block_end_[i] = (sum += blocks[i].length);
    t.contiguous_ = blocks.empty() ||
                    (blocks.size() == 1 && blocks[0].offset == t.true_lb_ &&
                     static_cast<MPI_Aint>(t.size_) == t.extent_);
    t.uniform_length_ = 0;
    if (!blocks.empty()) {
      const std::size_t len = blocks[0].length;
      if (std::all_of(blocks.begin(), blocks.end(), [len](const Block& b) { return b.length == len; }))
        t.uniform_length_ = len;
    }
  }

  std::shared_ptr<Datatype> type_;
};

DatatypeRef make_contiguous(std::size_t count, const DatatypeRef& old) {
  DatatypeBuilder b(MPI_COMBINER_CONTIGUOUS, {Segment{0, count, old}});
  b.contents().ints = {static_cast<int>(count)};
  b.contents().types = {old};
  return b.finish(false);
}

namespace {

DatatypeRef strided(int combiner, std::size_t count, std::size_t blocklength, MPI_Aint stride_bytes,
                    const DatatypeRef& old) {
  std::vector<Segment> segs;
  segs.reserve(count);
  for (std::size_t i = 0; i < count; ++i)
    segs.push_back(Segment{static_cast<std::int64_t>(i) * stride_bytes, blocklength, old});
  DatatypeBuilder b(combiner, std::move(segs));
  b.contents().types = {old};
  return b.finish(false);
}

}  // namespace

DatatypeRef make_vector(std::size_t count, std::size_t blocklength, std::int64_t stride, const DatatypeRef& old) {
  auto t = strided(MPI_COMBINER_VECTOR, count, blocklength, stride * old->extent(), old);
  auto& c = const_cast<TypeContents&>(t->contents());
  c.ints = {static_cast<int>(count), static_cast<int>(blocklength), static_cast<int>(stride)};
  return t;
}

DatatypeRef make_hvector(std::size_t count, std::size_t blocklength, MPI_Aint stride, const DatatypeRef& old) {
  auto t = strided(MPI_COMBINER_HVECTOR, count, blocklength, stride, old);
  auto& c = const_cast<TypeContents&>(t->contents());
  c.ints = {static_cast<int>(count), static_cast<int>(blocklength)};
  c.aints = {stride};
  return t;
}

namespace {

DatatypeRef indexed_bytes(int combiner, std::span<const int> blocklengths, std::span<const MPI_Aint> byte_displs,
                          const DatatypeRef& old, TypeContents contents) {
  std::vector<Segment> segs;
  segs.reserve(byte_displs.size());
  for (std::size_t i = 0; i < byte_displs.size(); ++i)
    segs.push_back(Segment{byte_displs[i], static_cast<std::size_t>(blocklengths[i]), old});
  DatatypeBuilder b(combiner, std::move(segs));
  contents.combiner = combiner;
  b.contents() = std::move(contents);
  return b.finish(false);
}

std::vector<MPI_Aint> scaled(std::span<const int> displs, MPI_Aint extent) {
  std::vector<MPI_Aint> out(displs.size());
  for (std::size_t i = 0; i < displs.size(); ++i) out[i] = displs[i] * extent;
  return out;
}

}  // namespace

DatatypeRef make_indexed(std::span<const int> blocklengths, std::span<const int> displs, const DatatypeRef& old) {
  TypeContents c;
  c.ints.push_back(static_cast<int>(displs.size()));
  c.ints.insert(c.ints.end(), blocklengths.begin(), blocklengths.end());
  c.ints.insert(c.ints.end(), displs.begin(), displs.end());
  c.types = {old};
  return indexed_bytes(MPI_COMBINER_INDEXED, blocklengths, scaled(displs, old->extent()), old, std::move(c));
}

DatatypeRef make_hindexed(std::span<const int> blocklengths, std::span<const MPI_Aint> displs,
                          const DatatypeRef& old) {
  TypeContents c;
  c.ints.push_back(static_cast<int>(displs.size()));
  c.ints.insert(c.ints.end(), blocklengths.begin(), blocklengths.end());
  c.aints.assign(displs.begin(), displs.end());
  c.types = {old};
  return indexed_bytes(MPI_COMBINER_HINDEXED, blocklengths, displs, old, std::move(c));
}

DatatypeRef make_indexed_block(int blocklength, std::span<const int> displs, const DatatypeRef& old) {
  TypeContents c;
  c.ints = {static_cast<int>(displs.size()), blocklength};
  c.ints.insert(c.ints.end(), displs.begin(), displs.end());
  c.types = {old};
  std::vector<int> lengths(displs.size(), blocklength);
  return indexed_bytes(MPI_COMBINER_INDEXED_BLOCK, lengths, scaled(displs, old->extent()), old, std::move(c));
}

DatatypeRef make_hindexed_block(int blocklength, std::span<const MPI_Aint> displs, const DatatypeRef& old) {
  TypeContents c;
  c.ints = {static_cast<int>(displs.size()), blocklength};
  c.aints.assign(displs.begin(), displs.end());
  c.types = {old};
  std::vector<int> lengths(displs.size(), blocklength);
  return indexed_bytes(MPI_COMBINER_HINDEXED_BLOCK, lengths, displs, old, std::move(c));
}

DatatypeRef make_struct(std::span<const int> blocklengths, std::span<const MPI_Aint> displs,
                        std::span<const DatatypeRef> types) {
  std::vector<Segment> segs;
  segs.reserve(types.size());
  for (std::size_t i = 0; i < types.size(); ++i)
    segs.push_back(Segment{displs[i], static_cast<std::size_t>(blocklengths[i]), types[i]});
  DatatypeBuilder b(MPI_COMBINER_STRUCT, std::move(segs));
  TypeContents& c = b.contents();
  c.ints.push_back(static_cast<int>(types.size()));
  c.ints.insert(c.ints.end(), blocklengths.begin(), blocklengths.end());
  c.aints.assign(displs.begin(), displs.end());
  c.types.assign(types.begin(), types.end());
  return b.finish(true);
}

DatatypeRef make_resized(const DatatypeRef& old, MPI_Aint lb, MPI_Aint extent) {
  DatatypeBuilder b(MPI_COMBINER_RESIZED, {Segment{0, 1, old}});
  b.contents().aints = {lb, extent};
  b.contents().types = {old};
  b.finish(false);
  return b.set_bounds(lb, extent);
}

DatatypeRef make_subarray(std::span<const int> sizes, std::span<const int> subsizes, std::span<const int> starts,
                          int order, const DatatypeRef& old) {
  const std::size_t ndims = sizes.size();
  // Dimensions from fastest-varying to slowest.
  std::vector<std::size_t> dims(ndims);
  for (std::size_t i = 0; i < ndims; ++i) dims[i] = order == MPI_ORDER_C ? ndims - 1 - i : i;
  DatatypeRef inner = old;
  MPI_Aint stride = old->extent();  // bytes between consecutive indices of the current dimension
  MPI_Aint start_disp = 0;
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::size_t d = dims[i];
    inner = i == 0 ? make_contiguous(static_cast<std::size_t>(subsizes[d]), old)
                   : make_hvector(static_cast<std::size_t>(subsizes[d]), 1, stride, inner);
    start_disp += starts[d] * stride;
    stride *= sizes[d];
  }
  // The subarray sits at its start offset within a full array: lb 0, extent the whole array.
  DatatypeBuilder b(MPI_COMBINER_SUBARRAY, {Segment{start_disp, 1, inner}});
  TypeContents& c = b.contents();
  c.ints.push_back(static_cast<int>(ndims));
  c.ints.insert(c.ints.end(), sizes.begin(), sizes.end());
  c.ints.insert(c.ints.end(), subsizes.begin(), subsizes.end());
  c.ints.insert(c.ints.end(), starts.begin(), starts.end());
  c.ints.push_back(order);
  c.types = {old};
  b.finish(false);
  return b.set_bounds(0, stride);
}

namespace {

// The indices of one dimension of a distributed array that the process at `coord` owns, as
// (first index, count) runs in increasing order (MPI-3.1 section 4.1.4).
std::vector<std::pair<int, int>> darray_runs(int gsize, int distrib, int darg, int psize, int coord) {
  std::vector<std::pair<int, int>> runs;
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE: runs.emplace_back(0, gsize); break;
    case MPI_DISTRIBUTE_BLOCK: {
      const int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
      const long first = static_cast<long>(coord) * block;
      const long last = std::min<long>(first + block, gsize);
      if (first < last) runs.emplace_back(static_cast<int>(first), static_cast<int>(last - first));
      break;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      const int block = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
      for (long first = static_cast<long>(coord) * block; first < gsize; first += static_cast<long>(psize) * block)
        runs.emplace_back(static_cast<int>(first), static_cast<int>(std::min<long>(block, gsize - first)));
      break;
    }
  }
  return runs;
}

}  // namespace

DatatypeRef make_darray(int size, int rank, std::span<const int> gsizes, std::span<const int> distribs,
                        std::span<const int> dargs, std::span<const int> psizes, int order, const DatatypeRef& old) {
  const std::size_t ndims = gsizes.size();
  // The process grid is row-major whatever the array order.
  std::vector<int> coords(ndims);
  for (std::size_t i = ndims, r = static_cast<std::size_t>(rank); i-- > 0;) {
    coords[i] = static_cast<int>(r % static_cast<std::size_t>(psizes[i]));
    r /= static_cast<std::size_t>(psizes[i]);
  }
  // From the fastest-varying dimension out: the owned runs of this dimension, each a block of "rows" of
  // the faster dimensions (resized to a full row so that consecutive indices are one row apart).
  DatatypeRef built = old;
  MPI_Aint row = old->extent();  // bytes of one index of the current dimension
  for (std::size_t i = 0; i < ndims; ++i) {
    const std::size_t d = order == MPI_ORDER_C ? ndims - 1 - i : i;
    std::vector<int> lengths;
    std::vector<MPI_Aint> displs;
    for (auto [first, count] : darray_runs(gsizes[d], distribs[d], dargs[d], psizes[d], coords[d])) {
      lengths.push_back(count);
      displs.push_back(first * row);
    }
    const DatatypeRef unit = i == 0 ? old : make_resized(built, 0, row);
    built = make_hindexed(lengths, displs, unit);
    row *= gsizes[d];
  }
  // Like a subarray: lb 0, extent the whole global array.
  DatatypeBuilder b(MPI_COMBINER_DARRAY, {Segment{0, 1, built}});
  TypeContents& c = b.contents();
  c.ints = {size, rank, static_cast<int>(ndims)};
  for (std::span<const int> arg : {gsizes, distribs, dargs, psizes}) c.ints.insert(c.ints.end(), arg.begin(), arg.end());
  c.ints.push_back(order);
  c.types = {old};
  b.finish(false);
  return b.set_bounds(0, row);
}

DatatypeRef make_dup(const DatatypeRef& old) {
  DatatypeBuilder b(MPI_COMBINER_DUP, {Segment{0, 1, old}});
  b.contents().types = {old};
  b.finish(false);
  // A dup has exactly the old type's bounds (including sticky markers and struct padding).
  auto t = b.copy_bounds(*old);
  if (old->committed()) t->mark_committed();
  return t;
}

DatatypeRef make_f90(int combiner, std::vector<int> params, const DatatypeRef& basis, std::string name) {
  DatatypeBuilder b(combiner, {Segment{0, 1, basis}});
  b.contents().ints = std::move(params);
  b.finish(false);
  b.mark_predefined();
  auto t = b.copy_bounds(*basis);
  t->name = std::move(name);
  return t;
}

DatatypeRef copy_datatype(const Datatype& type) {
  auto t = std::make_shared<Datatype>(type);
  t->name.clear();
  t->handle = MPI_DATATYPE_NULL;
  return t;
}

}  // namespace fabmpi
