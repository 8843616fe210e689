// fuzz_cmd_ack: what the broker plugin reads from a device on $devices/<id>/cmd_ack
// (common/protocol/cmd_ack.h), validated against the real schemas/, then what the plugin tells the
// caller (broker_plugin/calls/device_error.h). An accepted error ack must obey the server-templating
// rule of docs/protocol.md §9: no device text survives in the error envelope.
#include "broker_plugin/calls/device_error.h"
#include "common/protocol/cmd_ack.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto schemas = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas");
  static json::ParseArena arena;  // reused from input to input, as the plugin does from ack to ack
  fuzz::expect_ok_or_error([&] {
    const auto ack = parse_cmd_ack(fuzz::as_text(data, size), *schemas, arena);
    if (!ack) return;
    if (ack->ok && ack->result == nullptr) fuzz::property_failed("an ok ack without a result");
    if (!ack->ok && ack->error == nullptr) fuzz::property_failed("an error ack without its error");
    if (!ack->ok) (void)plugin::templated_device_error(*ack).to_json();
  });
  return 0;
}
