// Groups (MPI-3.1 section 6.3): handles and argument checks; the algebra is runtime/group_ops.cpp.
// Errors go to MPI_COMM_WORLD's error handler (no communicator is involved).
#include <span>
#include <vector>

#include "runtime/binding/library.hpp"
#include "runtime/group_ops.hpp"

using namespace fabmpi;
using namespace fabmpi::binding;

namespace {

// An empty result is MPI_GROUP_EMPTY, as MPICH returns it (programs compare against it).
MPI_Group group_handle(const GroupRef& group) {
  return group->size() == 0 ? MPI_GROUP_EMPTY : new_group_handle(group);
}

Rc check_rank_array(int n, const void* ranks, const char* what) {
  if (n < 0) return fail(MPI_ERR_ARG, "negative number of ranks %d", n);
  if (n > 0 && ranks == nullptr) return fail(MPI_ERR_ARG, "NULL %s with n = %d", what, n);
  return Rc();
}

template <class Op>
int group_result(const char* name, MPI_Group group, MPI_Group* newgroup, Op op) {
  ApiCall call(name);
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef g;
    FABMPI_TRY(to_group(group, &g));
    FABMPI_TRY(check_out_ptr(newgroup, "newgroup"));
    GroupRef out;
    FABMPI_TRY(op(*g, &out));
    *newgroup = group_handle(out);
    return Rc();
  }());
}

template <class Op>
int two_group_result(const char* name, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, Op op) {
  ApiCall call(name);
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef a, b;
    FABMPI_TRY(to_group(group1, &a));
    FABMPI_TRY(to_group(group2, &b));
    FABMPI_TRY(check_out_ptr(newgroup, "newgroup"));
    *newgroup = group_handle(op(*a, *b));
    return Rc();
  }());
}

std::vector<group_ops::RankRange> to_ranges(int n, int ranges[][3]) {
  std::vector<group_ops::RankRange> out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = {ranges[i][0], ranges[i][1], ranges[i][2]};
  return out;
}

}  // namespace

extern "C" {

#pragma weak MPI_Group_size = PMPI_Group_size
int PMPI_Group_size(MPI_Group group, int* size) {
  ApiCall call("MPI_Group_size");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef g;
    FABMPI_TRY(to_group(group, &g));
    FABMPI_TRY(check_out_ptr(size, "size"));
    *size = g->size();
    return Rc();
  }());
}

#pragma weak MPI_Group_rank = PMPI_Group_rank
int PMPI_Group_rank(MPI_Group group, int* rank) {
  ApiCall call("MPI_Group_rank");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef g;
    FABMPI_TRY(to_group(group, &g));
    FABMPI_TRY(check_out_ptr(rank, "rank"));
    *rank = g->rank_of_world(runtime().world_rank());
    return Rc();
  }());
}

#pragma weak MPI_Group_incl = PMPI_Group_incl
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return group_result("MPI_Group_incl", group, newgroup, [&](const Group& g, GroupRef* out) -> Rc {
    FABMPI_TRY(check_rank_array(n, ranks, "ranks"));
    return group_ops::incl(g, std::span<const int>(ranks, static_cast<std::size_t>(n)), out);
  });
}

#pragma weak MPI_Group_excl = PMPI_Group_excl
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  return group_result("MPI_Group_excl", group, newgroup, [&](const Group& g, GroupRef* out) -> Rc {
    FABMPI_TRY(check_rank_array(n, ranks, "ranks"));
    return group_ops::excl(g, std::span<const int>(ranks, static_cast<std::size_t>(n)), out);
  });
}

#pragma weak MPI_Group_range_incl = PMPI_Group_range_incl
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return group_result("MPI_Group_range_incl", group, newgroup, [&](const Group& g, GroupRef* out) -> Rc {
    FABMPI_TRY(check_rank_array(n, ranges, "ranges"));
    return group_ops::range_incl(g, to_ranges(n, ranges), out);
  });
}

#pragma weak MPI_Group_range_excl = PMPI_Group_range_excl
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  return group_result("MPI_Group_range_excl", group, newgroup, [&](const Group& g, GroupRef* out) -> Rc {
    FABMPI_TRY(check_rank_array(n, ranges, "ranges"));
    return group_ops::range_excl(g, to_ranges(n, ranges), out);
  });
}

#pragma weak MPI_Group_union = PMPI_Group_union
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return two_group_result("MPI_Group_union", group1, group2, newgroup, group_ops::set_union);
}

#pragma weak MPI_Group_intersection = PMPI_Group_intersection
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return two_group_result("MPI_Group_intersection", group1, group2, newgroup, group_ops::intersection);
}

#pragma weak MPI_Group_difference = PMPI_Group_difference
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  return two_group_result("MPI_Group_difference", group1, group2, newgroup, group_ops::difference);
}

#pragma weak MPI_Group_translate_ranks = PMPI_Group_translate_ranks
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  ApiCall call("MPI_Group_translate_ranks");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef a, b;
    FABMPI_TRY(to_group(group1, &a));
    FABMPI_TRY(to_group(group2, &b));
    FABMPI_TRY(check_rank_array(n, ranks1, "ranks1"));
    FABMPI_TRY(check_rank_array(n, ranks2, "ranks2"));
    const auto count = static_cast<std::size_t>(n);
    return group_ops::translate_ranks(*a, std::span<const int>(ranks1, count), *b, std::span<int>(ranks2, count));
  }());
}

#pragma weak MPI_Group_compare = PMPI_Group_compare
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  ApiCall call("MPI_Group_compare");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    GroupRef a, b;
    FABMPI_TRY(to_group(group1, &a));
    FABMPI_TRY(to_group(group2, &b));
    FABMPI_TRY(check_out_ptr(result, "result"));
    *result = group_ops::compare(*a, *b);
    return Rc();
  }());
}

#pragma weak MPI_Group_free = PMPI_Group_free
int PMPI_Group_free(MPI_Group* group) {
  ApiCall call("MPI_Group_free");
  return call.finish([&]() -> Rc {
    FABMPI_TRY(call.require_initialized());
    FABMPI_TRY(check_out_ptr(group, "group"));
    GroupRef g;
    FABMPI_TRY(to_group(*group, &g));
    // Freeing MPI_GROUP_EMPTY is allowed (MPI-3.1 errata); the predefined object itself stays.
    library().groups.erase(*group);
    *group = MPI_GROUP_NULL;
    return Rc();
  }());
}

}  // extern "C"
