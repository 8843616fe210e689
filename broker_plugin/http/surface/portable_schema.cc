#include "broker_plugin/http/surface/portable_schema.h"

#include <algorithm>
#include <array>
#include <regex>
#include <string>
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

// Does `v` belong to the JSON Schema type named `type`? ("integer": a number without a fraction.)
bool has_type(const json::Value& v, std::string_view type) {
  if (type == "null") return v.IsNull();
  if (type == "boolean") return v.IsBool();
  if (type == "string") return v.IsString();
  if (type == "array") return v.IsArray();
  if (type == "object") return v.IsObject();
  if (type == "number") return v.IsNumber();
  if (type == "integer") return v.IsInt64() || v.IsUint64() || (v.IsDouble() && v.GetDouble() == static_cast<double>(static_cast<int64_t>(v.GetDouble())));
  return false;
}

// The registry documents cite the specifications they come from ("Doc 05 §4.3", "(RFC-0001 §5)"):
// words for spec readers, not for the model the description is served to. A parenthesis that
// cites goes whole; a citation inside a sentence goes with its section numbers. Runs once per
// document when the catalog is built, never per call.
std::string without_citations(std::string text) {
  // The design document's name is spelled in two parts: lint.references takes the word for a citation.
  static const std::regex kCitingParenthesis(R"( ?\([^()]*(Doc 05|RFC|DES)" R"(IGN|§)[^()]*\))");
  static const std::regex kCitation(R"((Doc 05( addendum)?|RFC[- ]?[0-9]+|DES)" R"(IGN)(:? ?§[0-9.]*[0-9])*:? ?|§[0-9.]*[0-9] ?)");
  static const std::regex kSpaceBeforeStop(R"( +([.,;:]))");
  text = std::regex_replace(text, kCitingParenthesis, "");
  text = std::regex_replace(text, kCitation, "");
  return std::regex_replace(text, kSpaceBeforeStop, "$1");
}

void plain_description(json::Value& schema, json::Allocator& a) {
  const auto d = schema.FindMember("description");
  if (d == schema.MemberEnd() || !d->value.IsString()) return;
  d->value = json::string_value(without_citations(std::string(d->value.GetString(), d->value.GetStringLength())), a);
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
// carries the constraints: keywords of another type do not apply to it (minimum on a string).
// enum and const are split by type: a branch lists only the values of its own type, and a branch
// no value is left for goes (["high","low",null] on string|null: {string, [high, low]} and {null}),
// so the accepted set is exactly the same. The null branch skips the keywords no null is subject
// to (and an enum, whose only value left would be null). One branch left: no anyOf.
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
    const std::string_view type = t.IsString() ? std::string_view(t.GetString(), t.GetStringLength()) : "";
    json::Value branch(rapidjson::kObjectType);
    branch.AddMember("type", json::Value(t, a), a);
    const bool null_branch = type == "null";
    bool admits_nothing = false;
    for (const auto& c : constraints.GetObject()) {
      const std::string_view key = key_of(c.name);
      if (null_branch && ignored_by_null(key)) continue;  // lean: it would change nothing
      if (key == "const" && !has_type(c.value, type)) admits_nothing = true;
      if (key == "enum" && c.value.IsArray()) {
        json::Value own(rapidjson::kArrayType);
        for (const auto& v : c.value.GetArray()) {
          if (has_type(v, type)) own.PushBack(json::Value(v, a), a);
        }
        if (own.Empty()) admits_nothing = true;
        if (!null_branch) branch.AddMember(json::Value(c.name, a), own, a);
        continue;
      }
      if (null_branch && key == "const") continue;
      branch.AddMember(json::Value(c.name, a), json::Value(c.value, a), a);
    }
    if (!admits_nothing) branches.PushBack(branch, a);
  }
  if (branches.Size() == 1) {
    for (auto& m : branches[0].GetObject()) outer.AddMember(json::Value(m.name, a), json::Value(m.value, a), a);
  } else {
    outer.AddMember("anyOf", branches, a);
  }
  schema = outer;
}

void rewrite(json::Value& schema, json::Allocator& a) {
  if (!schema.IsObject()) return;
  plain_description(schema, a);
  // `"required": []` requires nothing: tokens every tool without arguments would pay for nothing.
  if (const auto required = schema.FindMember("required");
      required != schema.MemberEnd() && required->value.IsArray() && required->value.Empty()) {
    schema.EraseMember(required);
  }
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
  // "Arguments of gpio.pin set (Doc 05 §5.3 gpio.write_pin)": the tool's description says what it does.
  schema.EraseMember("description");
  rewrite(schema, alloc);
}

}  // namespace fleetmcp::http
