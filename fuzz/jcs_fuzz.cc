// fuzz_jcs: RFC 8785 canonicalisation of arbitrary bytes. The canonical form is a fixed point:
// canonicalising it again yields the same bytes (signatures over JCS depend on that).
#include "common/crypto/jcs.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_ok_or_error([&] {  // canonicalize throws for a number JSON cannot hold (NaN, inf)
    const auto canonical = jcs::canonicalize_text(fuzz::as_text(data, size));
    if (!canonical) return;  // not strict JSON
    const auto again = json::parse_strict(*canonical, ErrorCode::kInternal, {SIZE_MAX, 64});
    if (!again) fuzz::property_failed("the canonical form does not parse");
    if (jcs::canonicalize(*again) != *canonical) fuzz::property_failed("JCS output is not a fixed point");
  });
  return 0;
}
