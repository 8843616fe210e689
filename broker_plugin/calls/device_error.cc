#include "broker_plugin/calls/device_error.h"

#include <array>
#include <string>
#include <string_view>

namespace fleetmcp::plugin {

namespace {

struct ReasonText {
  std::string_view message, suggested_fix;
};

// One template per Doc 05 §9.1.1 reason, in DeviceReason's order.
constexpr std::array<ReasonText, 7> kReasonTexts{{
    {"the device found the arguments inconsistent with each other (for example a time range that ends before "
     "it starts)",
     "check how the arguments relate to each other (ranges, combinations) and call again with consistent ones"},
    {"the device's configuration does not allow this: the resource is outside the capability's allow-list, or "
     "the action is disabled",
     "use a resource the capability allows; only the device's operator can change its configuration"},
    {"the device has no such resource: the process, unit or other thing the arguments name does not exist",
     "list what exists first (the capability's snapshot or get) and call again with a current name or id"},
    {"the device cannot do this in its current state: hardware or a service it needs is absent or not ready, "
     "or the resource is not set up for it",
     "check the node's state (its get or snapshot) or ask its operator; retrying unchanged will not help"},
    {"the device's resource is busy or exhausted (hardware in use, storage full)",
     "wait for the resource to free up (another call finishing, space freed), then retry"},
    {"a service the device depends on is unreachable for now", "retry in a few seconds; if it persists, tell the "
     "device's operator"},
    {"the device's software failed on this call", "retry once; if it fails again, report it to the device's "
     "operator"},
}};

// Doc 05 addendum §6.1: the refusal to stop or disable a unit that active services depend on. The
// names travel in details.dependent_services, checked one by one by the reader (cmd_ack.h).
ErrorEnvelope dependents_error(const CmdAck& ack) {
  ErrorEnvelope envelope(ack.code,
                         "the device refused to stop or disable the unit: " +
                             std::to_string(ack.dependent_services.size()) +
                             " active services depend on it (details.dependent_services names them)",
                         "stop the services in details.dependent_services first, or repeat the call with force=true "
                         "and confirm_breaking_dependencies=true (needs tools:call:physical_actuation and a "
                         "confirmation)");
  envelope.reason = device_reason_name(DeviceReason::kFailedPrecondition);
  envelope.dependent_services = ack.dependent_services;
  return envelope;
}

// Issue 33 item 3: the device would not send a result larger than a cmd_ack may carry
// (kMaxResultBytes, common/protocol/cmd_ack.h). Retrying unchanged gets the same answer.
ErrorEnvelope too_large_error(const CmdAck& ack) {
  ErrorEnvelope envelope(ack.code,
                         "the result is larger than one answer of the device may carry (" +
                             std::to_string(kMaxCmdAckBytes / 1024) + " KiB); nothing was sent",
                         "ask for fewer: a smaller limit, a narrower filter (level, since, contains), or the next "
                         "page by offset or cursor");
  envelope.reason = device_reason_name(DeviceReason::kResourceExhausted);
  return envelope;
}

}  // namespace

ErrorEnvelope templated_device_error(const CmdAck& ack) {
  if (ack.not_run) {
    return ErrorEnvelope(ack.code, "the device received the command after its deadline and did not run it",
                         "nothing was changed; retry the call if it is still wanted");
  }
  if (!ack.dependent_services.empty()) return dependents_error(ack);
  if (ack.reason == DeviceReason::kResourceExhausted && ack.code == ErrorCode::kBadRequest) return too_large_error(ack);
  if (ack.reason) {
    const ReasonText& text = kReasonTexts[static_cast<size_t>(*ack.reason)];
    // A retry time is named only when the device sent one (Doc 05 §9.1.1 resource_exhausted).
    const bool timed = *ack.reason == DeviceReason::kResourceExhausted && ack.retry_after_ms;
    ErrorEnvelope envelope(ack.code, text.message, timed ? "retry after retry_after_ms" : text.suggested_fix);
    envelope.retry_after_ms = ack.retry_after_ms;
    envelope.reason = device_reason_name(*ack.reason);
    return envelope;
  }
  ErrorEnvelope envelope(ack.code, "the device refused the call with " + std::string(error_code_name(ack.code)),
                         ack.retry_after_ms ? "retry after retry_after_ms"
                         : ack.code == ErrorCode::kRateLimited ? "retry in a few seconds"
                                                             : "check the arguments and the node's state, then retry");
  envelope.retry_after_ms = ack.retry_after_ms;
  return envelope;
}

}  // namespace fleetmcp::plugin
