// fuzz_json: json::parse_strict on arbitrary bytes. What it accepts must survive a round trip:
// to_string() of the document parses again and serialises to the same text.
#include "common/base/json.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto doc = json::parse_strict(fuzz::as_text(data, size));
  if (!doc) return 0;  // refused, with a reason: what the parser is for
  const std::string once = json::to_string(*doc);
  // Serialising may lengthen the text ("1e5" -> "100000.0"): no size limit on the second parse.
  const auto again = json::parse_strict(once, ErrorCode::kInternal, {SIZE_MAX, 64});
  if (!again) fuzz::property_failed("to_string wrote text the parser refuses");
  if (json::to_string(*again) != once) fuzz::property_failed("to_string is not stable across a reparse");
  return 0;
}
