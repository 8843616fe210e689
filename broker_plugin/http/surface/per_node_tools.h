// MCP tool objects for a tenant's fleet (docs/protocol.md §7): one per capability × verb, named dotted or
// dashed (D9), described by the kind registry's static template (never device strings), with the
// registry's input and output schemas and annotations from safety_class. Also the tools/list
// pagination over the snapshot's stable order.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_plugin/http/fleet/fleet_view.h"
#include "broker_plugin/http/base/front_options.h"
#include "broker_plugin/http/surface/list_cursor.h"
#include "broker_plugin/http/surface/tool_surface.h"
#include "broker_plugin/http/base/mcp_revision.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::http {

// MCP annotations of a tool (tool_hints.h) with its verb's class as x-safety-class, openWorldHint
// false: the tools act only on the caller's own enrolled devices.
json::Value annotations_json(const FleetTool& tool, json::Allocator& alloc);

// A served tool's `_meta` (docs/protocol.md §7): x-safety-class again, because clients drop unknown
// top-level fields and some drop unknown annotation keys, while _meta reaches SDK users intact; and
// the tool's stability (Doc 05 §9.2: alpha, beta or stable, from the kind registry).
inline constexpr std::string_view kStabilityMetaKey = "io.fleetmcp/stability";
json::Value tool_meta(SafetyClass safety_class, Stability stability, json::Allocator& alloc);

// Also the per_node tool surface: tools/list pages through every tool of the tenant.
class PerNodeTools final : public ToolSurface {
 public:
  PerNodeTools(std::shared_ptr<const SchemaRegistry> schemas, ToolNameStyle style, size_t page_size);

  // ToolSurface: list_page, the cursor a string this server issued.
  Result<json::Document> list(const FleetSnapshot& fleet, std::string_view tenant, const json::Value* cursor,
                              McpRevision revision) const override;
  std::string digest(const FleetSnapshot& fleet, std::string_view tenant) const override {
    return fleet.tools_digest(tenant);
  }
  std::string instructions() const override;
  std::string call_name(const FleetTool& tool) const override { return presented_name(tool.name); }

  std::string presented_name(const ToolName& name) const;
  // One MCP Tool object.
  json::Value tool_json(const FleetTool& tool, McpRevision revision, json::Allocator& alloc) const;
  // The tools/list result {tools, nextCursor?}. nullopt when the cursor is not one of ours.
  std::optional<json::Document> list_page(const FleetSnapshot& fleet, std::string_view tenant,
                                          const std::optional<std::string>& cursor, McpRevision revision) const;
  // A copy of a registry schema as served: the portable rewrite, parsed once at start-up.
  json::Value schema_json(std::string_view id, json::Allocator& alloc) const;
  // An output schema as served: without its top description, which the tool's description (the
  // kind's template, "Returns …") already gives; every tool repeats it otherwise. It carries an
  // `$id` of its own, "<id>/served-<hash of the served text>": the official MCP SDK compiles a
  // validator for every listed tool's outputSchema (Ajv, ~0.8 ms each) unless it has compiled one
  // for that $id before (docs/http-front.md, "Listing cost").
  json::Value output_schema_json(std::string_view id, json::Allocator& alloc) const;
  // The input schema a client sees: the registry's, plus commit_token for two-phase tools.
  json::Value input_schema_json(const FleetTool& tool, json::Allocator& alloc) const;

  const SchemaRegistry& schemas() const { return *schemas_; }
  const CursorCodec& cursors() const { return cursors_; }
  size_t page_size() const { return page_size_; }

 private:
  // The page that starts after the tool named `after` (from the first tool without one).
  json::Document page_after(const FleetSnapshot& fleet, std::string_view tenant, const std::optional<std::string>& after,
                            McpRevision revision) const;

  std::shared_ptr<const SchemaRegistry> schemas_;
  ToolNameStyle style_;
  size_t page_size_;
  CursorCodec cursors_;
  std::map<std::string, json::Document, std::less<>> parsed_;         // schema id -> served document
  std::map<std::string, json::Document, std::less<>> parsed_output_;  // schema id -> served as outputSchema
};

}  // namespace fleetmcp::http
