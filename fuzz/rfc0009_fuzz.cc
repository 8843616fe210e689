// fuzz_rfc0009: the RFC-0009 request body of POST /mcp/tools/call ({"tool","arguments"}), handled
// by the real FrontHandler over the in-memory fleet. The first byte picks the Accept header (the
// metrics subscription needs text/event-stream); the rest is the body. A fresh front per input
// (see mcp_fuzz.cc).
#include <chrono>
#include <memory>
#include <string>

#include "tests/support/front_fixture.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http::testing;

namespace {

constexpr std::string_view kAccepts[] = {"application/json", "text/event-stream",
                                         "application/json, text/event-stream", "*/*"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  FrontFixture f;
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto ex = f.post_tools_call(f.token(), body, kAccepts[data[0] % 4]);
  f.advance(std::chrono::milliseconds(120'000));
  if (ex->answers != 1) fuzz::property_failed("a tools/call exchange was not answered exactly once");
  if (ex->reply && ex->reply->status == 200) (void)body_of(*ex);  // a result is JSON (else Error escapes: a finding)
  if (ex->stream) ex->stream->end(http::StreamEnd::kPeerClosed);
  return 0;
}
