#include "common/registry/keyword_renaming.h"

namespace fleetmcp::schema_check {
namespace {

void rename_in_map(json::Value& map, json::Allocator& alloc) {
  if (!map.IsObject()) return;
  for (auto& m : map.GetObject()) rename_keywords(m.value, alloc);
}

void rename_in_array(json::Value& arr, json::Allocator& alloc) {
  if (!arr.IsArray()) return;
  for (auto& v : arr.GetArray()) rename_keywords(v, alloc);
}

}  // namespace

void rename_keywords(json::Value& schema, json::Allocator& alloc) {
  if (!schema.IsObject()) return;  // boolean schemas
  for (auto& m : schema.GetObject()) {
    const std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "pattern") {
      m.name = json::string_value(kPatternKey, alloc);
      json::Value spec(rapidjson::kObjectType);
      spec.AddMember("regex", m.value, alloc);  // moves the pattern string
      if (const auto max = schema.FindMember("maxLength"); max != schema.MemberEnd() && max->value.IsUint64()) {
        spec.AddMember("maxLength", json::Value(max->value.GetUint64()), alloc);
      }
      m.value = std::move(spec);
    } else if (key == "const") {
      m.name = json::string_value(kConstKey, alloc);
    } else if (key == "enum") {
      m.name = json::string_value(kEnumKey, alloc);
    } else if (key == "type") {
      m.name = json::string_value(kTypeKey, alloc);
    } else if (key == "properties" || key == "patternProperties" || key == "$defs" || key == "definitions" ||
               key == "dependencies") {
      rename_in_map(m.value, alloc);
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
      rename_in_array(m.value, alloc);
    } else if (key == "items") {
      if (m.value.IsArray()) {
        rename_in_array(m.value, alloc);
      } else {
        rename_keywords(m.value, alloc);
      }
    } else if (key == "additionalItems" || key == "additionalProperties" || key == "contains" ||
               key == "propertyNames" || key == "not" || key == "if" || key == "then" || key == "else") {
      rename_keywords(m.value, alloc);
    }
  }
}

}  // namespace fleetmcp::schema_check
