// Group algebra (MPI-3.1 section 6.3): pure functions over Group, no runtime and no handles, so every
// ordering rule and error case is unit-tested without a transport (tests/unit/test_group.cpp).
//
// Ordering rules the standard fixes:
//   incl:         the order of `ranks`                 excl:       the order of the group, minus `ranks`
//   union:        all of a in a's order, then the members of b not in a, in b's order
//   intersection: the members of a that are in b, in a's order
//   difference:   the members of a not in b, in a's order
#pragma once

#include <mpi.h>

#include <span>
#include <vector>

#include "runtime/group.hpp"
#include "runtime/rc.hpp"

namespace fabmpi::group_ops {

// One (first, last, stride) triplet of MPI_Group_range_incl / range_excl.
struct RankRange {
  int first;
  int last;
  int stride;
};

// MPI_ERR_RANK for a rank outside the group or a rank named twice.
Rc incl(const Group& group, std::span<const int> ranks, GroupRef* out);
Rc excl(const Group& group, std::span<const int> ranks, GroupRef* out);
// MPI_ERR_ARG for a zero stride or a range whose stride points away from `last`; MPI_ERR_RANK for an
// endpoint outside the group or a rank produced twice (within or across ranges).
Rc range_incl(const Group& group, std::span<const RankRange> ranges, GroupRef* out);
Rc range_excl(const Group& group, std::span<const RankRange> ranges, GroupRef* out);
// The ranks, in order, that the triplets name (the checks above).
Rc expand_ranges(const Group& group, std::span<const RankRange> ranges, std::vector<int>* ranks);

GroupRef set_union(const Group& a, const Group& b);
GroupRef intersection(const Group& a, const Group& b);
GroupRef difference(const Group& a, const Group& b);

// out[i] = rank in `b` of the process with rank ranks[i] in `a`; MPI_UNDEFINED when absent from b,
// MPI_PROC_NULL for MPI_PROC_NULL. MPI_ERR_RANK for a rank outside `a`.
Rc translate_ranks(const Group& a, std::span<const int> ranks, const Group& b, std::span<int> out);

// MPI_IDENT (same members, same order), MPI_SIMILAR (same members), MPI_UNEQUAL.
int compare(const Group& a, const Group& b);

// True when every member of `sub` is a member of `super`.
bool is_subset(const Group& sub, const Group& super);

}  // namespace fabmpi::group_ops
