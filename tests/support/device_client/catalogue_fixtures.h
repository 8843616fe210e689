// What the tests of the Doc 05 catalogue's readers share: the recorded trees and outputs in
// tests/fixtures/catalogue/, and the check every document a reader builds gets (valid against the
// kind's output schema, as the device's dispatcher checks it). Unit tests only (FLEETMCP_SOURCE_DIR).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "common/base/json.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::device::testing {

inline const std::string kFixtures = FLEETMCP_SOURCE_DIR "/tests/fixtures/catalogue";
inline const std::string kPi = kFixtures + "/pi";

inline const SchemaRegistry& schemas() {
  static const auto reg = SchemaRegistry::load(FLEETMCP_SOURCE_DIR "/schemas");
  return *reg;
}

inline void expect_valid(std::string_view schema, const json::Value& doc) {
  const auto bad = schemas().validate(std::string("mcp://schemas/") + std::string(schema), doc);
  EXPECT_FALSE(bad) << json::to_string(doc) << "\n" << bad->path << ": " << bad->message;
}

}  // namespace fleetmcp::device::testing
