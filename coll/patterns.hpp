// Who talks to whom at step k: the peer and step arithmetic of the collective algorithms, kept apart
// from the code that communicates (pure constexpr functions, unit-tested for all sizes 1..64).
//
// Conventions: `rank` and `size` are ranks of the communicator, or "virtual" ranks relative to a root
// (vrank = (rank - root + size) % size) for rooted collectives; every function is defined for size >= 1.
#pragma once

#include <cstddef>

namespace fabmpi::coll::pattern {

constexpr bool is_pow2(int n) { return n > 0 && (n & (n - 1)) == 0; }

// The largest power of two <= n (n >= 1).
constexpr int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Steps of a doubling pattern over n ranks: ceil(log2 n); 0 for n == 1.
constexpr int ceil_log2(int n) {
  int steps = 0;
  for (int p = 1; p < n; p *= 2) ++steps;
  return steps;
}

constexpr int mod(int a, int n) { return ((a % n) + n) % n; }

// ---- ring
constexpr int ring_right(int rank, int size) { return (rank + 1) % size; }
constexpr int ring_left(int rank, int size) { return (rank - 1 + size) % size; }
// Ring reduce-scatter ending with rank r owning block r: at step s (0..size-2) rank r sends its partial
// of block (r - s - 1) to the right and receives the left's partial of block (r - s - 2).
constexpr int ring_rs_send_block(int rank, int size, int step) { return mod(rank - step - 1, size); }
constexpr int ring_rs_recv_block(int rank, int size, int step) { return mod(rank - step - 2, size); }
// Ring allgather starting with rank r owning block r: at step s it forwards block (r - s) and
// receives block (r - s - 1).
constexpr int ring_ag_send_block(int rank, int size, int step) { return mod(rank - step, size); }
constexpr int ring_ag_recv_block(int rank, int size, int step) { return mod(rank - step - 1, size); }

// ---- binomial tree rooted at vrank 0. Node v's subtree is [v, v + subtree_size(v)); its children are
// v + m for the powers of two m below v's lowest set bit (all m < size for v == 0), m ascending.
constexpr int binomial_parent(int vrank) { return vrank == 0 ? -1 : (vrank & (vrank - 1)); }
// The lowest set bit of v, or the first power of two >= size for the root.
constexpr int binomial_span(int vrank, int size) {
  if (vrank == 0) {
    int p = 1;
    while (p < size) p *= 2;
    return p;
  }
  return vrank & -vrank;
}
constexpr int binomial_subtree_size(int vrank, int size) {
  const int span = binomial_span(vrank, size);
  return span < size - vrank ? span : size - vrank;
}
constexpr int binomial_num_children(int vrank, int size) {
  int n = 0;
  for (int m = 1; m < binomial_span(vrank, size) && vrank + m < size; m *= 2) ++n;
  return n;
}
// The i-th child (i ascending = smallest subtree first).
constexpr int binomial_child(int vrank, int size, int i) {
  int m = 1;
  for (int k = 0; k < i; ++k) m *= 2;
  return vrank + m;
}

// ---- recursive doubling / halving over the largest power of two, with the non-power-of-two fold:
// among the first 2*rem ranks (rem = size - pof2) each even rank hands its data to the odd rank above it
// and sits out; the remaining pof2 ranks take "new ranks" 0..pof2-1 in rank order, so a new rank's data
// always covers a contiguous range of old ranks (which keeps non-commutative reductions in order).
constexpr int fold_pof2(int size) { return floor_pow2(size); }
constexpr int fold_rem(int size) { return size - floor_pow2(size); }
// The new rank of `rank`, or -1 for a rank that sits out.
constexpr int fold_newrank(int rank, int size) {
  const int rem = fold_rem(size);
  if (rank < 2 * rem) return (rank % 2 == 0) ? -1 : rank / 2;
  return rank - rem;
}
constexpr int fold_oldrank(int newrank, int size) {
  const int rem = fold_rem(size);
  return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}
// The first old rank whose data new rank `newrank` carries (newrank covers [first, oldrank(newrank)]).
constexpr int fold_first_oldrank(int newrank, int size) {
  const int rem = fold_rem(size);
  return newrank < rem ? newrank * 2 : newrank + rem;
}
// For a sitting-out (even) rank: the rank that carries its data; for a carrier: the even rank below.
constexpr int fold_partner(int rank, int size) { return rank % 2 == 0 ? rank + 1 : rank - 1; }
// Recursive doubling partner at step k among new ranks (distance 2^k).
constexpr int rd_partner(int newrank, int step) { return newrank ^ (1 << step); }

// ---- dissemination (barrier): ceil(log2 size) steps; at step k send to rank + 2^k, receive from rank - 2^k.
constexpr int dissemination_steps(int size) { return ceil_log2(size); }
constexpr int dissemination_to(int rank, int size, int step) { return (rank + (1 << step)) % size; }
constexpr int dissemination_from(int rank, int size, int step) { return mod(rank - (1 << step), size); }

// ---- Bruck allgather: rank r starts with its block at position 0 of a rotated buffer; at step k
// (distance d = 2^k) it sends its first min(d, size - d) blocks to r - d and appends as many from r + d.
constexpr int bruck_steps(int size) { return ceil_log2(size); }
constexpr int bruck_ag_to(int rank, int size, int step) { return mod(rank - (1 << step), size); }
constexpr int bruck_ag_from(int rank, int size, int step) { return (rank + (1 << step)) % size; }
constexpr int bruck_ag_blocks(int size, int step) {
  const int d = 1 << step;
  return d < size - d ? d : size - d;
}
// Bruck alltoall: after a local rotation (position i holds the data for rank r + i), step k moves the
// positions with bit k set to rank r + 2^k. Position i ends up holding the data from rank r - i.
constexpr int bruck_a2a_to(int rank, int size, int step) { return (rank + (1 << step)) % size; }
constexpr int bruck_a2a_from(int rank, int size, int step) { return mod(rank - (1 << step), size); }
constexpr bool bruck_a2a_moves(int position, int step) { return (position >> step) & 1; }
constexpr int bruck_a2a_source_of_position(int rank, int size, int position) { return mod(rank - position, size); }

// ---- pairwise exchange: at step s (1..size-1) send to rank + s and receive from rank - s.
constexpr int pairwise_to(int rank, int size, int step) { return (rank + step) % size; }
constexpr int pairwise_from(int rank, int size, int step) { return mod(rank - step, size); }

// ---- even split of `total` items into `parts` blocks (the first total % parts blocks get one more).
constexpr std::size_t split_count(std::size_t total, int parts, int i) {
  const std::size_t p = static_cast<std::size_t>(parts);
  return total / p + (static_cast<std::size_t>(i) < total % p ? 1 : 0);
}
constexpr std::size_t split_offset(std::size_t total, int parts, int i) {
  const std::size_t p = static_cast<std::size_t>(parts), ii = static_cast<std::size_t>(i);
  const std::size_t extra = total % p;
  return ii * (total / p) + (ii < extra ? ii : extra);
}

}  // namespace fabmpi::coll::pattern
