// The MCP protocol revisions the front speaks and what each one may carry, so a 2025-03-26 client
// never sees fields its schema does not have. The 2025 revisions are the legacy era (initialize,
// then a session); 2026-07-28 is stateless: each request carries its revision in its _meta
// (docs/http-front.md, "Revisions").
#pragma once

#include <optional>
#include <string_view>

namespace fleetmcp::http {

enum class McpRevision { k2025_03_26, k2025_06_18, k2025_11_25, k2026_07_28 };

// What initialize offers when it is asked for a revision it cannot give a session: the latest with
// sessions (2026-07-28 has none).
inline constexpr McpRevision kLatestRevision = McpRevision::k2025_11_25;
// What the transport assumes when a request carries no MCP-Protocol-Version (spec, 2025-06-18).
inline constexpr McpRevision kAssumedRevision = McpRevision::k2025_03_26;

std::string_view revision_name(McpRevision r);
std::optional<McpRevision> revision_from_name(std::string_view name);
// "2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26"
std::string_view supported_revisions_text();
// The same, newest first, as server/discover and UnsupportedProtocolVersionError list them.
inline constexpr std::string_view kSupportedRevisionNames[] = {"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"};

// No initialize and no session: the revision, the client's capabilities and its identity travel in
// every request's _meta.
inline bool is_stateless(McpRevision r) { return r == McpRevision::k2026_07_28; }

// outputSchema, structuredContent, tool titles: 2025-06-18 and later.
inline bool has_structured_output(McpRevision r) { return r != McpRevision::k2025_03_26; }
// JSON-RPC batches were allowed in 2025-03-26 only.
inline bool allows_batches(McpRevision r) { return r == McpRevision::k2025_03_26; }

}  // namespace fleetmcp::http
