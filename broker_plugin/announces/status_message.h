// The retained payload of $devices/<id>/status (schemas/status@1.0.0.json, docs/protocol.md §3). Only the
// plugin writes it (docs/protocol.md D6).
#pragma once

#include <string>

#include "broker_plugin/announces/node_registry.h"

namespace fleetmcp::plugin {

// {"node_id","state","since_ms"[,"manifest_etag","expires_at_ms"]}: the etag and expiry of the
// last accepted manifest, absent when none was accepted.
std::string status_message(const NodeRecord& node, NodeState state, int64_t since_ms);

}  // namespace fleetmcp::plugin
