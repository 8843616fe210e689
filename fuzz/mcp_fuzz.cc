// fuzz_mcp: MCP JSON-RPC requests as an authenticated agent POSTs them to /mcp, handled by the
// real FrontHandler over the in-memory fleet of tests/support (the same harness as
// tests/unit/http/http_mcp_test.cc). The first byte picks the protocol revision of the session and
// whether the session header is sent; the rest is the body. After each request the fake clock
// runs past every deadline, so calls the request started finish too.
//
// Every input gets a fresh front, so an input alone reproduces what it found, and LeakSanitizer
// can tell state the front keeps from memory it lost (all of it is freed when the front goes).
#include <chrono>
#include <memory>
#include <string>

#include "tests/support/front_fixture.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http::testing;

namespace {

constexpr std::string_view kRevisions[] = {"2025-03-26", "2025-06-18", "2025-11-25"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  FrontFixture f;
  const std::string token = f.token();
  const uint8_t selector = data[0];
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::string session = (selector & 4) ? std::string() : f.open_session(token, kRevisions[selector % 3]);
  const auto ex = f.post_mcp(body, session, token);
  f.advance(std::chrono::milliseconds(120'000));
  // Exactly one answer per exchange: a reply, a stream, or (cancelled) an abandon.
  if (ex->answers != 1) fuzz::property_failed("an MCP exchange was not answered exactly once");
  if (ex->reply && ex->reply->status >= 200 && ex->reply->status < 300 && !ex->reply->body.empty()) {
    (void)body_of(*ex);  // a success body is JSON (else Error escapes: a finding)
  }
  // Streams the request opened end now, as a client that disconnects would end them.
  if (ex->stream) ex->stream->end(http::StreamEnd::kPeerClosed);
  return 0;
}
