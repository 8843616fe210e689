#include "device_client/base/catalogue_error.h"

#include <cstring>

#include "common/protocol/cmd_ack.h"

namespace fleetmcp::device {
namespace {

ErrorEnvelope coded(ErrorCode code, DeviceReason reason, std::string_view what, std::string_view fix) {
  return ErrorEnvelope(code, reasoned_message(reason, what), fix);
}

}  // namespace

ErrorEnvelope failed_precondition(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kBadRequest, DeviceReason::kFailedPrecondition, what, fix);
}

ErrorEnvelope permission_denied(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kSafetyDenied, DeviceReason::kPermissionDenied, what, fix);
}

ErrorEnvelope not_found(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kBadRequest, DeviceReason::kNotFound, what, fix);
}

ErrorEnvelope invalid_argument(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kBadRequest, DeviceReason::kInvalidArgument, what, fix);
}

ErrorEnvelope resource_exhausted(std::string_view what, int64_t retry_after_ms) {
  ErrorEnvelope e = coded(ErrorCode::kRateLimited, DeviceReason::kResourceExhausted, what,
                          "retry after " + std::to_string(retry_after_ms) + " ms");
  e.retry_after_ms = retry_after_ms;
  return e;
}

ErrorEnvelope unavailable(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kInternal, DeviceReason::kUnavailable, what, fix);
}

std::string errno_text(int err) {
  return "errno " + std::to_string(err) + " (" + std::strerror(err) + ")";
}

}  // namespace fleetmcp::device
