// Tool schemas as the front serves them (issue 14 part 4). The registry's documents stay exactly
// as published (/schemas serves their bytes, validation uses them); what goes into tools/list is
// rewritten so that clients mapping JSON Schema onto a single-`type` dialect (Gemini function
// declarations, OpenAPI 3.0 subsets) accept every tool, and so that nothing is repeated per tool
// that a client does not need:
//  - `"type": ["integer","null"]` becomes `"anyOf": [{"type":"integer", <constraints>},
//    {"type":"null"}]`, each branch's enum/const holding only the values of its own type,
//    annotations (title, description, default, examples) staying outside: the same set of
//    accepted values, one `type` per branch;
//  - `$schema`, `$id`, `title` and `description` are dropped at the top: MCP's default dialect is
//    2020-12, the id names a registry document the served schema no longer is byte for byte, the
//    title repeats the tool's name and the description is for spec readers (the tool's own
//    description says what it does); output schemas get an `$id` of their own,
//    "<id>/served-<hash>", see PerNodeTools::output_schema_json;
//  - descriptions inside speak to the model: citations of the specifications ("Doc 05 §4.3",
//    "(RFC-0001 §5)") are taken out of them (the registry's documents keep them, and their hashes);
// The result validates exactly the same instances as the original (the unit test checks it).
#pragma once

#include "common/base/json.h"

namespace fleetmcp::http {

// Rewrites `schema` in place.
void make_portable(json::Value& schema, json::Allocator& alloc);

}  // namespace fleetmcp::http
