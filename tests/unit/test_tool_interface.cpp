// The MPI_T registry without a runtime (runtime/tool_interface.hpp): one control variable per tunable,
// categories that partition the variables, values from the environment, refused writes, and the
// per-handle counter arithmetic (start, stop, write, reset, readreset) when nothing moves.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <set>
#include <string>

#include "runtime/tool_interface.hpp"

using namespace fabmpi;
using namespace fabmpi::tool;

TEST_CASE("every tunable is a control variable, in exactly one category") {
  ToolInterface t;
  const auto specs = tunable_specs();
  REQUIRE(t.cvars().size() == specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    CHECK(t.cvars()[i].name == specs[i].env_name);
    CHECK(t.cvar_index(specs[i].env_name) == static_cast<int>(i));
    CHECK(t.categories()[static_cast<std::size_t>(t.cvars()[i].category)].name == specs[i].subsystem);
  }
  std::multiset<int> cvars, pvars;
  for (const CategoryInfo& c : t.categories()) {
    cvars.insert(c.cvars.begin(), c.cvars.end());
    pvars.insert(c.pvars.begin(), c.pvars.end());
  }
  for (int i = 0; i < static_cast<int>(t.cvars().size()); ++i) CHECK(cvars.count(i) == 1);
  for (int i = 0; i < static_cast<int>(t.pvars().size()); ++i) CHECK(pvars.count(i) == 1);
  CHECK(t.cvar_index("FABMPI_NOPE") == -1);
  CHECK(t.pvar_index("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL) == 0);
  CHECK(t.pvar_index("posted_recvq_length", MPI_T_PVAR_CLASS_COUNTER) == -1);
}

TEST_CASE("control variables read the environment without a runtime; writes are refused") {
  ToolInterface t;
  t.init();
  ::setenv("FABMPI_RNDV_CHUNK", "2M", 1);
  CvarHandle* h = nullptr;
  int count = 0;
  REQUIRE(t.cvar_handle_alloc(t.cvar_index("FABMPI_RNDV_CHUNK"), nullptr, &h, &count).ok());
  CHECK(count == 1);
  unsigned long long value = 0;
  REQUIRE(t.cvar_read(*h, nullptr, &value).ok());
  CHECK(value == 2u << 20);
  CHECK(t.cvar_write(*h, nullptr, &value).code() == MPI_T_ERR_CVAR_SET_NEVER);
  ::unsetenv("FABMPI_RNDV_CHUNK");

  ::setenv("FABMPI_NETMOD", "tcp", 1);
  CvarHandle* s = nullptr;
  REQUIRE(t.cvar_handle_alloc(t.cvar_index("FABMPI_NETMOD"), nullptr, &s, &count).ok());
  CHECK(count == 4);
  char text[8] = {};
  REQUIRE(t.cvar_read(*s, nullptr, text).ok());
  CHECK(std::string(text) == "tcp");
  ::unsetenv("FABMPI_NETMOD");

  CvarHandle* log = nullptr;
  REQUIRE(t.cvar_handle_alloc(t.cvar_index("FABMPI_LOG"), nullptr, &log, &count).ok());
  CHECK(t.cvar_write(*log, nullptr, "info").code() == MPI_T_ERR_CVAR_SET_NOT_NOW);
  CHECK(t.find_cvar_handle(log) == log);
  t.cvar_handle_free(log);
  CHECK(t.find_cvar_handle(log) == nullptr);
  // The last finalize frees the rest.
  REQUIRE(t.finalize().ok());
  CHECK(t.find_cvar_handle(h) == nullptr);
  CHECK(t.finalize().code() == MPI_T_ERR_NOT_INITIALIZED);
}

TEST_CASE("counter handles: start, stop, write, reset, readreset; levels refuse them") {
  ToolInterface t;
  t.init();
  PvarSession* session = t.session_create();
  PvarHandle* counter = nullptr;
  PvarHandle* level = nullptr;
  int count = 0;
  REQUIRE(t.pvar_handle_alloc(*session, t.pvar_index("eager_messages_sent", MPI_T_PVAR_CLASS_COUNTER), nullptr,
                              &counter, &count).ok());
  REQUIRE(t.pvar_handle_alloc(*session, t.pvar_index("posted_recvq_length", MPI_T_PVAR_CLASS_LEVEL), nullptr,
                              &level, &count).ok());
  unsigned long long v = 99;
  REQUIRE(t.pvar_read(*counter, nullptr, &v).ok());
  CHECK(v == 0);
  v = 5;
  REQUIRE(t.pvar_write(*counter, nullptr, &v).ok());
  REQUIRE(t.pvar_start(*session, nullptr, nullptr).ok());  // all handles: the level is skipped
  REQUIRE(t.pvar_read(*counter, nullptr, &v).ok());
  CHECK(v == 5);
  REQUIRE(t.pvar_readreset(*counter, nullptr, &v).ok());
  CHECK(v == 5);
  REQUIRE(t.pvar_read(*counter, nullptr, &v).ok());
  CHECK(v == 0);
  REQUIRE(t.pvar_stop(*session, counter, nullptr).ok());
  CHECK(t.pvar_start(*session, level, nullptr).code() == MPI_T_ERR_PVAR_NO_STARTSTOP);
  CHECK(t.pvar_reset(*session, level, nullptr).code() == MPI_T_ERR_PVAR_NO_WRITE);
  CHECK(t.pvar_write(*level, nullptr, &v).code() == MPI_T_ERR_PVAR_NO_WRITE);
  CHECK(t.pvar_readreset(*level, nullptr, &v).code() == MPI_T_ERR_PVAR_NO_WRITE);
  REQUIRE(t.pvar_read(*level, nullptr, &v).ok());
  CHECK(v == 0);
  PvarSession* other = t.session_create();
  CHECK(t.find_pvar_handle(*other, counter) == nullptr);
  CHECK(t.find_pvar_handle(*session, counter) == counter);
  t.session_free(session);
  CHECK(t.find_session(session) == nullptr);
  CHECK(t.find_session(other) == other);
  REQUIRE(t.finalize().ok());
}
