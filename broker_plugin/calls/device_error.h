// What a caller is told when a device answers a call with an error (docs/protocol.md §4.4, §9):
// the device's code and retry_after_ms are kept, its message and suggested_fix are not. Error text
// that reaches agents is server-templated, so a device can never put words in the gateway's mouth.
// Plugin policy over the shared reader of common/protocol/cmd_ack.h.
#pragma once

#include "common/base/error.h"
#include "common/protocol/cmd_ack.h"

namespace fleetmcp::plugin {

// `ack` is an error ack (!ack.ok). Whether the device said it did not run the command (not_run)
// picks the template.
ErrorEnvelope templated_device_error(const CmdAck& ack);

}  // namespace fleetmcp::plugin
