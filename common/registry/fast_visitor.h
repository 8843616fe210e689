// The walk that validates a document against a compiled schema. valijson's Schema (the compiled
// constraint tree) is walked by FastVisitor, a valijson ConstraintVisitor that keeps the current
// location as a chain of stack frames instead of valijson's per-node std::vector<std::string>
// copies. The keywords the published documents use are checked in place; any other constraint is
// handed to valijson's own ValidationVisitor for that value, so every draft-7 keyword valijson
// knows still works. This keeps a 16-capability manifest in the low microseconds (valijson's
// visitor alone took ~150 us, mostly allocating paths); the unit tests check that both walks
// agree on every document. Thread-safe: the schema is only read.
#pragma once

#include <optional>

#include "common/base/json.h"
#include "common/registry/validation_failure.h"

namespace valijson {
class Schema;
}

namespace fleetmcp::schema_check {

// nullopt when `value` is valid against `schema` (compiled with add_own_constraints, so its
// PolyConstraints are OwnChecks). A valid document costs one walk that builds no strings; an
// invalid one is walked again, collecting every failure, to report the most specific.
std::optional<ValidationFailure> fast_validate(const valijson::Schema& schema, const json::Value& value);

}  // namespace fleetmcp::schema_check
