// What every fuzz target shares: the libFuzzer entry point's signature and the rule that decides
// what counts as a finding.
//
// fleetmcp's contract for untrusted bytes is "return a value (a Result's envelope for a refusal), or,
// where not converted yet, throw fleetmcp::Error" (docs/CONTRIBUTING.md "Errors"). So a target
// catches fleetmcp::Error and nothing else: any other exception escapes to libFuzzer, which
// reports it as a crash, exactly like a sanitizer report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "common/base/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fleetmcp::fuzz {

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs fn(); fleetmcp::Error is the documented answer to bad input and is swallowed.
template <typename Fn>
void expect_ok_or_error(Fn&& fn) {
  try {
    fn();
  } catch (const Error&) {
  }
}

// A property the code promises (a round trip, an idempotence) did not hold: abort, so libFuzzer
// keeps the input like any other crash.
[[noreturn]] inline void property_failed(const char* what) {
  std::fprintf(stderr, "fuzz property failed: %s\n", what);
  std::abort();
}

}  // namespace fleetmcp::fuzz
