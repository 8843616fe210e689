// completion/complete (MCP 2025-06-18 "Completion") for the arguments of the fleet prompts
// (fleet_prompts.h) and of the resource templates (node_resources.h): node_id completes to the
// caller's tenant's node ids, cap_id to the cap_ids of the node named in context.arguments.node_id
// (every cap_id of the tenant without one), kind to the kinds the tenant's nodes have. Values
// begin with what was typed, in order, at most kMaxCompletions (total and hasMore say how many
// matched). Any other argument, or a prompt that does not exist, completes to nothing: the
// specification lets a server offer no values, and the official conformance suite asks for the
// empty answer on a prompt it does not know.
#pragma once

#include "broker_plugin/http/fleet/fleet_view.h"
#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::http {

inline constexpr size_t kMaxCompletions = 100;  // the specification's limit per response

// The completion/complete result {completion: {values, total, hasMore}} for `params` {ref,
// argument {name, value}, context?}. The error's message completes "Invalid params: …" (a missing
// ref or argument, or a ref type other than ref/prompt and ref/resource).
Result<json::Document> complete(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* params);

}  // namespace fleetmcp::http
