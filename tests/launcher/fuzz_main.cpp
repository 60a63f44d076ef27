// libFuzzer entry point for fuzz_launcher.hpp (meson -Dfuzz=true, clang): build/tests/launcher/fuzz_launcher
// [corpus dir] -max_total_time=60.
#include "tests/launcher/fuzz_launcher.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fabmpi::launcher::fuzz::run_one(data, size);
  return 0;
}
