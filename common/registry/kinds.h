// The capability kind registry (RFC-0001 §3.2 plus amendment rows, docs/protocol.md D11) and the MCP tool
// projection rule: {kind_short}.{node_id}.{cap_id}.{verb}, at most 64 characters (RFC-0001 §3,
// §3.1), with the dashed presentation form of docs/protocol.md D9.
//
// The rows are data (schemas/kinds.json), loaded by SchemaRegistry; this file only knows their shape.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/json.h"

namespace fleetmcp {

enum class SafetyClass { kReadOnly, kReversible, kPhysicalActuation };
std::string_view safety_class_name(SafetyClass c);  // "read_only" …
std::optional<SafetyClass> safety_class_from_name(std::string_view name);

// Read verbs need tools:call:read_only whatever the class; set/invoke need the class's scope.
bool is_read_verb(std::string_view verb);  // snapshot, subscribe, get, stream
std::string_view required_scope(SafetyClass c, std::string_view verb);

// The class one verb of a capability of `kind` declared `declared` is served and judged by
// (docs/protocol.md D36): a read verb reads, so its class is read_only
// whatever the capability's; manage.server invoke installs software and restarts the device, so it
// is physical_actuation (its scope, the two-phase confirmation) though the capability is
// reversible; every other verb keeps the capability's class.
SafetyClass verb_safety_class(std::string_view kind, SafetyClass declared, std::string_view verb);

// Doc 05 §9.2: experimental tools are marked alpha or beta; a verb the registry does not mark is
// stable. Clients read it from each tool's `_meta` (docs/protocol.md §7).
enum class Stability { kAlpha, kBeta, kStable };
std::string_view stability_name(Stability s);  // "alpha", "beta", "stable"

struct VerbSpec {
  std::string verb;
  std::string input_schema;   // full id, "mcp://schemas/…@x.y.z"
  std::string output_schema;
  std::string description;    // static template; "{node_id}" and "{cap_id}" are the only fields
  // The word(s) a by_kind tool is named by after its kind (gpio_pin_set_mode): the registry's
  // "action", what the verb does on this kind; the verb itself when the row gives none.
  std::string action;
  std::string title;  // the by_kind tool's plain title, "Set a GPIO pin as input or output"; else the verb
  Stability stability = Stability::kStable;
};

struct KindSpec {
  std::string kind;        // "system.echo"
  std::string kind_short;  // "sysecho"
  std::string schema_ref;  // the kind contract document
  std::vector<VerbSpec> verbs;

  const VerbSpec* verb(std::string_view name) const;

  // The schema_ref a capability of this kind announces: the kind contract, except where a seed
  // fixes another (RFC-0005 §9: an echo capability's is its verb's input schema).
  const std::string& announced_schema_ref() const;
  // RFC 004 §11, a declaration is checked, not trusted: a capability may declare any version of
  // the kind contract or of the announced schema, and nothing else. Calls use the broker's own
  // copies of the kind's schemas whatever the version declared.
  bool accepts_schema_ref(std::string_view schema_ref) const;
};

class KindRegistry {
 public:
  // From schemas/kinds.json. Throws Error(kInternal) naming `origin` on a malformed row.
  static KindRegistry from_json(const json::Value& doc, std::string_view origin);
  const KindSpec* by_kind(std::string_view kind) const;
  const KindSpec* by_short(std::string_view kind_short) const;
  const std::vector<KindSpec>& all() const { return kinds_; }

 private:
  std::vector<KindSpec> kinds_;
};

inline constexpr size_t kMaxToolNameLength = 64;

// A tool name's four tokens as views into the text they were read from: looking a name up
// needs no copy of it (split_tool_name).
struct ToolNameView {
  std::string_view kind_short, node_id, cap_id, verb;
};

struct ToolName {
  std::string kind_short, node_id, cap_id, verb;

  ToolNameView view() const { return {kind_short, node_id, cap_id, verb}; }

  std::string dotted() const;  // "sysecho.<id>.echo.invoke"
  std::string dashed() const;  // "sysecho-<id>-echo-invoke" (docs/protocol.md D9)
};

// Validates each token against its RFC-0001 §3 pattern and the 64-char budget; nullopt otherwise.
std::optional<ToolName> make_tool_name(std::string_view kind_short, std::string_view node_id,
                                       std::string_view cap_id, std::string_view verb);
// Accepts the dotted or the dashed form.
std::optional<ToolName> parse_tool_name(std::string_view name);
// The same checks, the tokens left where they are in `name`.
std::optional<ToolNameView> split_tool_name(std::string_view name);

// Renders a VerbSpec description template with no device-chosen string in it (RFC-0001 §3: a
// node_id or cap_id is the device's word): its fields become "the device" and "the capability",
// which the tool's name, its arguments or its _meta identify. Only server data goes in.
std::string render_description(const VerbSpec& spec);

}  // namespace fleetmcp
