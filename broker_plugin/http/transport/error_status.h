// docs/protocol.md §9 for plain-HTTP endpoints (POST /mcp/tools/call, /schemas): the RFC-0001 envelope as
// the body, with the HTTP status that fits its code, and Retry-After for E_RATE_LIMITED.
#pragma once

#include "broker_plugin/http/transport/exchange.h"
#include "common/base/error.h"

namespace fleetmcp::http {

int http_status(ErrorCode code);
HttpReply envelope_reply(const ErrorEnvelope& error);
HttpReply envelope_reply(int status, const ErrorEnvelope& error);

}  // namespace fleetmcp::http
