// The one front the fuzz targets over a front (http, mcp, rfc0009, tool_args) share: a
// FrontFixture (tests/support/front_fixture.h: schemas, in-memory fleet, FrontHandler) built once
// per process, and a bearer token minted once. Building them per input held those targets to a
// few inputs a second (issue 33 item 9); an input now pays for its requests only.
//
// What one input leaves behind is ended by end_input(), so the next input meets the same front:
// the fake clock runs past a call's default deadline and the rate windows (and, while a request
// is still unanswered, past every deadline: calls, commit tokens, elicitations), the streams it
// opened end as a client that goes away ends them, and the audit lines go. Running the clock
// 120 s after every input cost a quarter of the time: the front checks its streams every second.
//
// One MCP session per revision is kept from input to input, opened again when an input ended it
// or it idled out: opening one per input tripled the requests. What of a session outlives an
// input (its log level) is what a long-lived agent leaves there too.
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "tests/support/front_fixture.h"

namespace fleetmcp::fuzz {

class FrontHarness {
 public:
  static FrontHarness& get() {
    static FrontHarness harness;
    return harness;
  }

  http::testing::FrontFixture& fixture() { return fixture_; }

  // A token with every scope, valid now (a new one once the fake clock nears its expiry).
  const std::string& token() {
    if (fixture_.scheduler->now_ms() >= renew_at_ms_) {
      token_ = fixture_.token("acme", http::testing::kAllScopes, "alice", kTokenTtl.count());
      renew_at_ms_ = fixture_.scheduler->now_ms() + kTokenTtl.count() * 1000 / 2;
    }
    return token_;
  }

  // The id of a live session of this revision.
  const std::string& session(std::string_view revision) {
    std::string& id = sessions_[std::string(revision)];
    if (id.empty() || !fixture_.front->sessions().find(id)) id = fixture_.open_session(token(), revision);
    return id;
  }

  void end_input() {
    fixture_.advance(kSettle);
    const auto unanswered = [](const auto& ex) { return ex->answers == 0; };
    if (std::any_of(fixture_.exchanges.begin(), fixture_.exchanges.end(), unanswered)) {
      fixture_.advance(kPastEveryDeadline);
    }
    for (const auto& ex : fixture_.exchanges) {
      if (ex->stream) ex->stream->end(http::StreamEnd::kPeerClosed);
    }
    fixture_.exchanges.clear();
    fixture_.audit->clear();
    fixture_.scheduler->run();
  }

 private:
  FrontHarness() = default;

  // Longer than a call's default deadline (2 s, the test fleet's constraints) and a rate window.
  static constexpr std::chrono::milliseconds kSettle{3'000};
  // Longer than any call's deadline, a commit token's 30 s and an elicitation's wait (120 s).
  static constexpr std::chrono::milliseconds kPastEveryDeadline{121'000};
  static constexpr std::chrono::seconds kTokenTtl{std::chrono::hours(24 * 365)};

  http::testing::FrontFixture fixture_;
  std::string token_;
  int64_t renew_at_ms_ = 0;
  std::map<std::string, std::string> sessions_;  // revision → Mcp-Session-Id
};

}  // namespace fleetmcp::fuzz
