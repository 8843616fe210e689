// A schemas directory for tests: a copy of the real one plus a "test.relay" kind (kind_short
// "relay", verbs set and get) whose capabilities are declared physical_actuation, so two-phase
// calls and the reversible/physical scopes can be exercised before the Raspberry Pi kinds land.
// index.json is rewritten with the new files' SHA-256, so SchemaRegistry::load verifies it as usual.
#pragma once

#include <string>

namespace fleetmcp::http::testing {

// Writes the directory (created if missing) and returns it.
std::string write_test_schemas(const std::string& source_dir, const std::string& target_dir);

}  // namespace fleetmcp::http::testing
