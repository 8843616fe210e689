#include "device_client/handlers/catalogue_error.h"

#include <cstring>

namespace fleetmcp::device {
namespace {

Error coded(ErrorCode code, std::string_view symbol, std::string_view what, std::string_view fix) {
  return Error(code, std::string(symbol) + ": " + std::string(what), fix);
}

}  // namespace

Error failed_precondition(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kBadRequest, "failed_precondition", what, fix);
}

Error permission_denied(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kSafetyDenied, "permission_denied", what, fix);
}

Error not_found(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kBadRequest, "not_found", what, fix);
}

Error invalid_argument(std::string_view what, std::string_view fix) {
  return coded(ErrorCode::kBadRequest, "invalid_argument", what, fix);
}

Error resource_exhausted(std::string_view what, int64_t retry_after_ms) {
  Error e = coded(ErrorCode::kRateLimited, "resource_exhausted", what,
                  "retry after " + std::to_string(retry_after_ms) + " ms");
  e.with_retry_after_ms(retry_after_ms);
  return e;
}

std::string errno_text(int err) {
  return "errno " + std::to_string(err) + " (" + std::strerror(err) + ")";
}

}  // namespace fleetmcp::device
