// fuzz_device_cmd: the `cmd` envelope as fleetmcp-device receives it on $devices/<id>/cmd
// (common/protocol/cmd.h): step 1 (strict JSON, msg_id) then step 2 (every other field).
#include <string>

#include "common/protocol/cmd.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto cmd = read_cmd(fuzz::as_text(data, size));
  if (!cmd) {
    if (cmd.error().message.empty()) fuzz::property_failed("read_cmd refused without saying why");
    return 0;
  }
  const auto env = check_cmd_envelope(*cmd);
  if (!env && env.error().suggested_fix.empty()) fuzz::property_failed("a refused cmd without a suggested_fix");
  return 0;
}
