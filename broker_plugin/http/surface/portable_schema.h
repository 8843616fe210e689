// Tool schemas as the front serves them (issue 14 part 4). The registry's documents stay exactly
// as published (/schemas serves their bytes, validation uses them); what goes into tools/list is
// rewritten so that clients mapping JSON Schema onto a single-`type` dialect (Gemini function
// declarations, OpenAPI 3.0 subsets) accept every tool, and so that nothing is repeated per tool
// that a client does not need:
//  - `"type": ["integer","null"]` becomes `"anyOf": [{"type":"integer", <constraints>},
//    {"type":"null"}]` (enum/const kept on every branch), annotations (title, description, default, examples) staying outside: the
//    same set of accepted values, one `type` per branch;
//  - `$schema`, `$id` and `title` are dropped at the top: MCP's default dialect is 2020-12, the id
//    names a registry document the served schema no longer is byte for byte, and the title only
//    repeats the tool's name (output schemas also lose their top description and get an `$id` of
//    their own, "<id>/served-<hash>", see PerNodeTools::output_schema_json);
// The result validates exactly the same instances as the original (the unit test checks it).
#pragma once

#include "common/base/json.h"

namespace fleetmcp::http {

// Rewrites `schema` in place.
void make_portable(json::Value& schema, json::Allocator& alloc);

}  // namespace fleetmcp::http
