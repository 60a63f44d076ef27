#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include "launcher/io_forward.hpp"

using fabmpi::launcher::LineForwarder;

namespace {
std::string drain(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  return out;
}
}  // namespace

TEST_CASE("line forwarding: partial lines wait for their end; EOF completes them", "[io]") {
  int p[2];
  REQUIRE(::pipe2(p, O_NONBLOCK) == 0);
  {
    LineForwarder a(p[1], "[0] "), b(p[1], "[1] ");
    a.consume("hel");
    b.consume("wor");
    CHECK(drain(p[0]).empty());
    a.consume("lo\nsecond ");
    b.consume("ld\n");
    a.consume("line\nlast");
    b.consume("x");
    CHECK(drain(p[0]) == "[0] hello\n[1] world\n[0] second line\n");
    a.finish();
    b.finish();
    b.finish();
    CHECK(drain(p[0]) == "[0] last\n[1] x\n");
  }
  ::close(p[0]);
  ::close(p[1]);
}

TEST_CASE("line forwarding: without a prefix the bytes pass unchanged", "[io]") {
  int p[2];
  REQUIRE(::pipe2(p, O_NONBLOCK) == 0);
  LineForwarder a(p[1], "");
  a.consume("a\nb\n\nc");
  CHECK(drain(p[0]) == "a\nb\n\n");
  CHECK(a.pending_bytes() == 1);
  ::close(p[0]);
  ::close(p[1]);
}

TEST_CASE("line forwarding: notes whether a line carried the watched text", "[io]") {
  int p[2];
  REQUIRE(::pipe2(p, O_NONBLOCK) == 0);
  {
    LineForwarder f(p[1], "[2] ");
    f.watch_for("fabmpi: rank 2: hang report");
    f.consume("fabmpi: rank 2: hang");
    CHECK_FALSE(f.saw_needle());  // only whole lines count
    f.consume(" report: no progress\nnext\n");
    CHECK(f.saw_needle());
    CHECK(drain(p[0]) == "[2] fabmpi: rank 2: hang report: no progress\n[2] next\n");
  }
  ::close(p[0]);
  ::close(p[1]);
}
