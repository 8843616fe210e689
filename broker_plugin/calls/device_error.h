// What a caller is told when a device answers a call with an error (docs/protocol.md §4.4, §9):
// the device's code, retry_after_ms and Doc 05 reason (a closed enum, common/protocol/cmd_ack.h)
// are kept, its message and suggested_fix are not. The message and suggested_fix are templated per
// reason and the reason goes in details.reason, so a device can never put words in the gateway's
// mouth, yet "no such process" and "since is after until" no longer read the same.
// Plugin policy over the shared reader of common/protocol/cmd_ack.h.
#pragma once

#include "common/base/error.h"
#include "common/protocol/cmd_ack.h"

namespace fleetmcp::plugin {

// `ack` is an error ack (!ack.ok). Whether the device said it did not run the command (not_run)
// picks the template.
ErrorEnvelope templated_device_error(const CmdAck& ack);

}  // namespace fleetmcp::plugin
