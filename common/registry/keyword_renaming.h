// Keyword renaming: before valijson compiles a schema, the registry renames four keywords in the
// document's in-memory copy ("pattern", "const", "enum", "type") to private keywords its own
// constraints check (own_constraints.h says why). The published bytes are never changed.
//
// Only objects in schema positions are renamed, so a property *named* "pattern" or an "enum"
// inside a "const" value is left alone. A "pattern" takes its sibling "maxLength" along: the
// private keyword's value is {"regex": "<pattern>", "maxLength": n} (maxLength only when the
// schema gives one), so the matcher knows the longest string it may be handed.
#pragma once

#include <string_view>

#include "common/base/json.h"

namespace fleetmcp::schema_check {

inline constexpr std::string_view kPatternKey = "x-fleetmcp-pattern";
inline constexpr std::string_view kConstKey = "x-fleetmcp-const";
inline constexpr std::string_view kEnumKey = "x-fleetmcp-enum";
inline constexpr std::string_view kTypeKey = "x-fleetmcp-type";

// Renames in `schema` and every subschema it contains; `alloc` is the document's allocator.
void rename_keywords(json::Value& schema, json::Allocator& alloc);

}  // namespace fleetmcp::schema_check
