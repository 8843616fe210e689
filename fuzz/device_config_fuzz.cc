// fuzz_device_config: device.conf as a person edits it (common/base/config_file.h line format, then
// device_client/config/device_config.h). Paths are only resolved, never opened, so no file is touched.
#include "common/base/config_file.h"
#include "device_client/config/device_config.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::expect_ok_or_error([&] {
    const auto entries = parse_config_text(fuzz::as_text(data, size), "fuzz.conf").value();
    for (const auto& e : entries) {
      fuzz::expect_ok_or_error([&] { (void)e.as_int(-1000, 1000); });
      fuzz::expect_ok_or_error([&] { (void)e.as_number(0, 1e6); });
      fuzz::expect_ok_or_error([&] { (void)e.as_bool(); });
    }
    device::parse_device_config(entries, "fuzz.conf", "/nonexistent-fuzz-dir");
  });
  return 0;
}
