// The pure parts of communicator creation (tree arithmetic, split ordering), apart from comm_create.cpp so
// that unit tests link them without a transport.
#include <algorithm>

#include "runtime/comm_create.hpp"

namespace fabmpi::comm_create {

TreePeers binomial_tree(int index, int n) {
  TreePeers tree;
  int mask = 1;
  while (mask < n) {
    if (index & mask) {
      tree.parent = index - mask;
      break;
    }
    mask <<= 1;
  }
  // The subtree of `index` spans index .. index + mask - 1; its children sit at index + 2^k below mask.
  for (int m = 1; m < mask; m <<= 1)
    if (index + m < n) tree.children.push_back(index + m);
  return tree;
}

std::uint64_t pack_color_key(int color, int key) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(color)) << 32) | static_cast<std::uint32_t>(key);
}

std::vector<int> split_members(const std::vector<std::uint64_t>& colors_keys, int color) {
  std::vector<int> members;
  for (std::size_t r = 0; r < colors_keys.size(); ++r)
    if (static_cast<int>(static_cast<std::uint32_t>(colors_keys[r] >> 32)) == color)
      members.push_back(static_cast<int>(r));
  auto key_of = [&](int r) {
    return static_cast<int>(static_cast<std::uint32_t>(colors_keys[static_cast<std::size_t>(r)]));
  };
  std::stable_sort(members.begin(), members.end(), [&](int a, int b) { return key_of(a) < key_of(b); });
  return members;
}

}  // namespace fabmpi::comm_create
