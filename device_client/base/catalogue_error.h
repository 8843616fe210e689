// The errors of the Doc 05 catalogue, as the project's one error envelope (what a handler's
// Result carries). Doc 05 §9.1 names symbolic codes (failed_precondition, permission_denied,
// not_found, …) that RFC-0001's closed enum does not have; each maps to the nearest envelope code
// and the symbolic code opens the message (common/protocol/cmd_ack.h, DeviceReason), so that the
// plugin can tell an agent "no such hardware here" from "you asked for something malformed"
// without passing on the device's text.
#pragma once

#include <string>
#include <string_view>

#include "common/base/error.h"

namespace fleetmcp::device {

// Hardware or a system service this capability needs is absent or not ready. E_BAD_REQUEST: the
// call cannot succeed on this node as configured, and retrying will not help.
ErrorEnvelope failed_precondition(std::string_view what, std::string_view fix);
// The resource is outside the capability's allow-list, or the action is disabled by configuration.
ErrorEnvelope permission_denied(std::string_view what, std::string_view fix);
// A named thing (a pid, a unit) does not exist.
ErrorEnvelope not_found(std::string_view what, std::string_view fix);
// Arguments that pass the schema but make no sense together.
ErrorEnvelope invalid_argument(std::string_view what, std::string_view fix);
// The hardware is busy (camera in use): E_RATE_LIMITED with a retry hint.
ErrorEnvelope resource_exhausted(std::string_view what, int64_t retry_after_ms);
// A dependency (systemd or logind over D-Bus) is unreachable for now. E_INTERNAL: not the caller's
// doing; a later retry may work.
ErrorEnvelope unavailable(std::string_view what, std::string_view fix);

// "errno 2 (No such file or directory)": system error text is ASCII from libc, never device data.
std::string errno_text(int err);

}  // namespace fleetmcp::device
