#include "broker_plugin/http/base/mcp_revision.h"

namespace fleetmcp::http {

std::string_view revision_name(McpRevision r) {
  switch (r) {
    case McpRevision::k2025_03_26: return "2025-03-26";
    case McpRevision::k2025_06_18: return "2025-06-18";
    case McpRevision::k2025_11_25: return "2025-11-25";
    case McpRevision::k2026_07_28: return "2026-07-28";
  }
  return "2025-11-25";
}

std::optional<McpRevision> revision_from_name(std::string_view name) {
  for (McpRevision r : {McpRevision::k2025_03_26, McpRevision::k2025_06_18, McpRevision::k2025_11_25, McpRevision::k2026_07_28}) {
    if (revision_name(r) == name) return r;
  }
  return std::nullopt;
}

std::string_view supported_revisions_text() { return "2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26"; }

}  // namespace fleetmcp::http
