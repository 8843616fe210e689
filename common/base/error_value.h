// The error envelope (error.h) as a JSON value, for a document that carries one: a JSON-RPC
// error's data, an MCP tool error, a fleet_read entry. The envelope is never written out as text
// to be parsed back (issue 34); ErrorEnvelope::to_json() writes this same value.
#pragma once

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp {

// The object mcp://schemas/error@1.2.0 describes, keys in schema order, its strings copied into
// `alloc`. Defined in error.cc, beside ErrorEnvelope::to_json.
json::Value error_value(const ErrorEnvelope& error, json::Allocator& alloc);

}  // namespace fleetmcp
