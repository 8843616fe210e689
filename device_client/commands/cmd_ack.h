// The `cmd_ack` envelope a node sends on $devices/<id>/cmd_ack (docs/protocol.md §4), exactly one per cmd:
//   {"type":"cmd_ack","msg_id":…,"in_reply_to":…,"payload":{"ok":true,"result":{…}}}
//   {"type":"cmd_ack","msg_id":…,"in_reply_to":…,"payload":{"ok":false,"error":{RFC-0001 §4}}}
#pragma once

#include <string>
#include <string_view>

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp::device {

std::string ok_ack(std::string_view ack_msg_id, std::string_view in_reply_to, const json::Value& result);
std::string error_ack(std::string_view ack_msg_id, std::string_view in_reply_to, const ErrorEnvelope& error);

}  // namespace fleetmcp::device
