#include "broker_plugin/http/transport/error_status.h"

#include <algorithm>

namespace fleetmcp::http {

int http_status(ErrorCode code) {
  switch (code) {
    case ErrorCode::kBadRequest:
    case ErrorCode::kInvalidArguments:
    case ErrorCode::kManifestInvalid: return 400;
    case ErrorCode::kSafetyDenied: return 403;
    case ErrorCode::kManifestNotFound:
    case ErrorCode::kKindUnsupported:
    case ErrorCode::kVerbUnsupported: return 404;
    case ErrorCode::kRateLimited: return 429;
    case ErrorCode::kAttestationFailed: return 502;  // the device answered for another node
    case ErrorCode::kNodeOffline: return 503;
    case ErrorCode::kDeadlineExceeded: return 504;
    case ErrorCode::kInternal: return 500;
  }
  return 500;
}

HttpReply envelope_reply(const ErrorEnvelope& error) { return envelope_reply(http_status(error.code), error); }

HttpReply envelope_reply(int status, const ErrorEnvelope& error) {
  HttpReply r = HttpReply::json(status, error.to_json());
  if (error.code == ErrorCode::kRateLimited && error.retry_after_ms) {
    r.with("Retry-After", std::to_string(std::max<int64_t>(1, (*error.retry_after_ms + 999) / 1000)));
  }
  return r;
}

}  // namespace fleetmcp::http
