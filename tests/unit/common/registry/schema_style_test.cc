// Doc 05 §2.4.1 and §2.4.2 over every parameter and result document in schemas/ (every
// `*.input@` and `*.output@` file of index.json), so that a new schema cannot quietly break them:
// the top level is an object that refuses unknown fields, every string is bounded (maxLength,
// enum, pattern or const), every number has a minimum, a percentage stops at 100, and every
// number a caller sends has a maximum. The few exceptions are listed here, each with its reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "common/base/file_text.h"
#include "common/base/json.h"

namespace fleetmcp {
namespace {

namespace fs = std::filesystem;

const fs::path kSchemasDir = fs::path(FLEETMCP_SOURCE_DIR) / "schemas";

// Measured values a threshold is compared with: a process's CPU share counts every core it runs on
// (up to 100 × cores, as ps and top count it), and memory has no fixed ceiling.
const std::set<std::string> kUnboundedAbove = {
    "process.table.get.output@1.0.0.json#/properties/cpu_percent",
    "process.table.snapshot.output@1.0.0.json#/properties/processes/items/properties/cpu_percent",
    "process.table.snapshot.output@1.1.0.json#/properties/processes/items/properties/cpu_percent",
    "process.table.snapshot.input@1.0.0.json#/properties/filter/properties/min_cpu_percent",
    "process.table.snapshot.input@1.0.0.json#/properties/filter/properties/min_memory_mb",
};

bool has_any(const json::Value& v, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (v.HasMember(k)) return true;
  }
  return false;
}

bool has_type(const json::Value& v, std::string_view type) {
  const json::Value* t = json::find(v, "type");
  if (t == nullptr) return false;
  if (t->IsString()) return t->GetString() == type;
  if (!t->IsArray()) return false;
  for (const auto& e : t->GetArray()) {
    if (e.IsString() && e.GetString() == type) return true;
  }
  return false;
}

struct StyleChecker {
  std::string file;
  bool input = false;
  std::vector<std::string> problems;

  void walk(const json::Value& v, const std::string& at) {
    if (v.IsArray()) {
      for (rapidjson::SizeType i = 0; i < v.Size(); ++i) walk(v[i], at + "/" + std::to_string(i));
      return;
    }
    if (!v.IsObject()) return;
    check(v, at);
    for (const auto& m : v.GetObject()) walk(m.value, at + "/" + m.name.GetString());
  }

  void check(const json::Value& v, const std::string& at) {
    const std::string where = file + "#" + at;
    if (has_type(v, "string") && !has_any(v, {"maxLength", "enum", "pattern", "const"})) {
      problems.push_back(where + ": a string without maxLength, enum, pattern or const");
    }
    if (!has_type(v, "integer") && !has_type(v, "number")) return;
    if (!has_any(v, {"minimum", "exclusiveMinimum", "enum", "const"})) problems.push_back(where + ": a number without a minimum");
    const std::string name = at.substr(at.rfind('/') + 1);
    const bool percent = name.ends_with("_percent") || name.ends_with("_pct");
    if (kUnboundedAbove.contains(where)) return;
    const json::Value* maximum = json::find(v, "maximum");
    if (percent && (maximum == nullptr || !maximum->IsNumber() || maximum->GetDouble() != 100)) {
      problems.push_back(where + ": a percentage whose maximum is not 100");
    }
    if (input && !has_any(v, {"maximum", "exclusiveMaximum", "enum", "const"})) {
      problems.push_back(where + ": an argument number without a maximum");
    }
  }
};

TEST(SchemaStyle, ParametersAndResultsAreClosedObjectsWithBoundedValues) {
  const auto index = json::parse_strict(read_file(kSchemasDir / "index.json").value()).value();
  std::vector<std::string> problems;
  size_t documents = 0;
  for (const auto& row : index.GetArray()) {
    const std::string file(*json::get_string(row, "file"));
    const bool input = file.find(".input@") != std::string::npos;
    if (!input && file.find(".output@") == std::string::npos) continue;
    ++documents;
    const auto doc = json::parse_strict(read_file(kSchemasDir / file).value()).value();
    // §2.4.1: the top level of every parameters and result structure is a closed object.
    const json::Value* closed = json::find(doc, "additionalProperties");
    if (!has_type(doc, "object") || closed == nullptr || !closed->IsFalse()) {
      problems.push_back(file + ": the top level is not an object with additionalProperties false");
    }
    StyleChecker checker{file, input, {}};
    checker.walk(doc, "");
    problems.insert(problems.end(), checker.problems.begin(), checker.problems.end());
  }
  EXPECT_GE(documents, 40u);  // the catalogue's inputs and outputs, not an empty directory
  for (const auto& p : problems) ADD_FAILURE() << p;
  // The exceptions still name documents that exist: a renamed file does not widen them silently.
  for (const auto& where : kUnboundedAbove) {
    EXPECT_TRUE(fs::exists(kSchemasDir / where.substr(0, where.find('#')))) << where;
  }
}

}  // namespace
}  // namespace fleetmcp
