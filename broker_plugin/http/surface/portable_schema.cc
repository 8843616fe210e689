#include "broker_plugin/http/surface/portable_schema.h"

#include <array>
#include <string_view>

namespace fleetmcp::http {
namespace {

// Keywords that describe rather than constrain: they stay on the outer schema of a split union.
constexpr std::array<std::string_view, 6> kAnnotations = {"title", "description", "default", "examples",
                                                          "deprecated", "$comment"};

bool is_annotation(std::string_view key) {
  for (std::string_view a : kAnnotations) {
    if (a == key) return true;
  }
  return false;
}

std::string_view key_of(const json::Value& name) { return {name.GetString(), name.GetStringLength()}; }

// Keywords whose value is one subschema, an array of them, or a map of them (JSON Schema 2020-12).
constexpr std::array<std::string_view, 10> kOneSchema = {"items", "additionalProperties", "not", "if", "then",
                                                         "else", "contains", "propertyNames",
                                                         "unevaluatedProperties", "unevaluatedItems"};
constexpr std::array<std::string_view, 4> kSchemaArrays = {"anyOf", "oneOf", "allOf", "prefixItems"};
constexpr std::array<std::string_view, 5> kSchemaMaps = {"properties", "patternProperties", "$defs", "definitions",
                                                         "dependentSchemas"};

// Keywords that only constrain numbers, strings, arrays or objects: a null instance ignores them.
constexpr std::array<std::string_view, 21> kTypeSpecific = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "pattern", "format", "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
    "properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"};

bool ignored_by_null(std::string_view key) {
  for (std::string_view k : kTypeSpecific) {
    if (k == key) return true;
  }
  return false;
}

void rewrite(json::Value& schema, json::Allocator& a);

void rewrite_children(json::Value& schema, json::Allocator& a) {
  for (auto& m : schema.GetObject()) {
    const std::string_view key = key_of(m.name);
    for (std::string_view k : kOneSchema) {
      if (k == key) rewrite(m.value, a);
    }
    for (std::string_view k : kSchemaArrays) {
      if (k == key && m.value.IsArray()) {
        for (auto& sub : m.value.GetArray()) rewrite(sub, a);
      }
    }
    for (std::string_view k : kSchemaMaps) {
      if (k == key && m.value.IsObject()) {
        for (auto& sub : m.value.GetObject()) rewrite(sub.value, a);
      }
    }
  }
}

// {"type":[t1,t2,…], rest…} → {annotations…, "anyOf":[{"type":t1, constraints…}, …]}. Every branch
// carries the constraints: keywords of another type do not apply to it (minimum on a string) and
// enum/const still do, so the accepted set is exactly the same. The null branch skips the keywords
// no null is subject to.
void split_type_union(json::Value& schema, json::Allocator& a) {
  json::Value types;
  types.CopyFrom(schema["type"], a);
  schema.EraseMember("type");
  json::Value outer(rapidjson::kObjectType), constraints(rapidjson::kObjectType);
  for (auto& m : schema.GetObject()) {
    json::Value name(m.name, a), value(m.value, a);
    if (is_annotation(key_of(m.name))) outer.AddMember(name, value, a);
    else constraints.AddMember(name, value, a);
  }
  json::Value branches(rapidjson::kArrayType);
  for (const auto& t : types.GetArray()) {
    json::Value branch(rapidjson::kObjectType);
    branch.AddMember("type", json::Value(t, a), a);
    const bool null_branch = t.IsString() && std::string_view(t.GetString()) == "null";
    for (const auto& c : constraints.GetObject()) {
      if (null_branch && ignored_by_null(key_of(c.name))) continue;  // lean: it would change nothing
      branch.AddMember(json::Value(c.name, a), json::Value(c.value, a), a);
    }
    branches.PushBack(branch, a);
  }
  outer.AddMember("anyOf", branches, a);
  schema = outer;
}

void rewrite(json::Value& schema, json::Allocator& a) {
  if (!schema.IsObject()) return;
  rewrite_children(schema, a);
  const auto type = schema.FindMember("type");
  if (type == schema.MemberEnd() || !type->value.IsArray()) return;
  if (type->value.Size() == 1) {
    json::Value only(type->value[0], a);
    type->value = only;
    return;
  }
  split_type_union(schema, a);
}

}  // namespace

void make_portable(json::Value& schema, json::Allocator& alloc) {
  if (!schema.IsObject()) return;
  schema.EraseMember("$schema");
  schema.EraseMember("$id");
  schema.EraseMember("title");  // "gpio.pin set input": the tool's name and title say it
  rewrite(schema, alloc);
}

}  // namespace fleetmcp::http
