// fuzz_rfc0009: the RFC-0009 request body of POST /mcp/tools/call ({"tool","arguments"}), handled
// by the real FrontHandler over the in-memory fleet. The first byte picks the Accept header (the
// metrics subscription needs text/event-stream); the rest is the body. The front is built once
// (front_harness.h).
#include <memory>
#include <string>

#include "fuzz/front_harness.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;
using namespace fleetmcp::http::testing;

namespace {

constexpr std::string_view kAccepts[] = {"application/json", "text/event-stream",
                                         "application/json, text/event-stream", "*/*"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  auto& harness = fuzz::FrontHarness::get();
  const std::string body(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto ex = harness.fixture().post_tools_call(harness.token(), body, kAccepts[data[0] % 4]);
  harness.end_input();
  if (ex->answers != 1) fuzz::property_failed("a tools/call exchange was not answered exactly once");
  if (ex->reply && ex->reply->status == 200) (void)body_of(*ex);  // a result is JSON (else Error escapes: a finding)
  return 0;
}
