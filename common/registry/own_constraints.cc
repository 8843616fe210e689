#include "common/registry/own_constraints.h"

#include <re2/re2.h>
#include <re2/stringpiece.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "common/base/result.h"
#include "common/registry/char_class_pattern.h"
#include "common/registry/keyword_renaming.h"

namespace fleetmcp::schema_check {
namespace {

namespace vc = valijson::constraints;
using valijson::adapters::Adapter;

// An Adapter's value as RapidJSON (schema values handed to builders, and the rare value that
// valijson's own visitor passes to one of our constraints).
void to_rapidjson(const Adapter& a, json::Value& out, json::Allocator& alloc) {
  if (a.isObject()) {
    out.SetObject();
    a.applyToObject([&](const std::string& key, const Adapter& v) {
      json::Value child;
      to_rapidjson(v, child, alloc);
      out.AddMember(json::string_value(key, alloc), child, alloc);
      return true;
    });
  } else if (a.isArray()) {
    out.SetArray();
    a.applyToArray([&](const Adapter& v) {
      json::Value child;
      to_rapidjson(v, child, alloc);
      out.PushBack(child, alloc);
      return true;
    });
  } else if (a.isString()) {
    out = json::string_value(a.getString(), alloc);
  } else if (a.isBool()) {
    out.SetBool(a.getBool());
  } else if (a.isInteger()) {
    out.SetInt64(a.getInteger());
  } else if (a.isNumber()) {
    out.SetDouble(a.getDouble());
  } else {
    out.SetNull();
  }
}

// Compact JSON of a schema value, for messages ("read_only" is shown as "\"read_only\"").
std::string describe(const json::Value& v) { return json::to_string(v); }

// A keyword value no constraint can be built from; its message is what the load refusal quotes.
ErrorEnvelope unusable(std::string_view why) {
  return ErrorEnvelope(ErrorCode::kInternal, why, "correct the keyword in the schema file");
}

// valijson copies constraints (clone), so each keeps its heavy parts behind shared_ptr to
// immutable data. Each is made by its from_schema, which refuses an unusable keyword value.
template <typename Derived>
class OwnConstraint : public OwnCheck {
 public:
  const std::string& explain() const override { return *message_; }

 protected:
  void set_message(std::string message) { message_ = std::make_shared<const std::string>(std::move(message)); }
  // The keyword's value, copied out of the schema (const and enum compare with it).
  static std::shared_ptr<const json::Document> copy_of(const json::Value& value) {
    auto doc = std::make_shared<json::Document>();
    doc->CopyFrom(value, doc->GetAllocator());
    return doc;
  }

 private:
  Constraint* cloneInto(void* ptr) const override { return new (ptr) Derived(static_cast<const Derived&>(*this)); }
  size_t sizeOf() const override { return sizeof(Derived); }

  std::shared_ptr<const std::string> message_;
};

class PatternConstraint final : public OwnConstraint<PatternConstraint> {
 public:
  // {"regex": "<pattern>", "maxLength": n?}: rename_keywords() folds the sibling maxLength in.
  static Result<PatternConstraint> from_schema(const json::Value& spec) {
    const auto regex = spec.IsObject() ? spec.FindMember("regex") : spec.MemberEnd();
    if (!spec.IsObject() || regex == spec.MemberEnd() || !regex->value.IsString()) {
      return unusable("'pattern' must be a string");
    }
    const std::string p(regex->value.GetString(), regex->value.GetStringLength());
    RE2::Options options;
    options.set_log_errors(false);
    PatternConstraint c;
    c.regex_ = std::make_shared<const RE2>(p, options);
    if (!c.regex_->ok()) return unusable("'pattern' " + p + " is not a supported regex: " + c.regex_->error());
    c.simple_ = CharClassPattern::recognise(p);
    const auto max = spec.FindMember("maxLength");
    c.longest_ = max != spec.MemberEnd() && max->value.IsUint64() ? max->value.GetUint64() : kLongestUnboundedMatch;
    c.set_message("does not match pattern " + p + " (or is longer than " + std::to_string(c.longest_) + " characters)");
    return c;
  }

  bool check(const json::Value& v) const override {
    if (!v.IsString()) return true;
    if (v.GetStringLength() > longest_) return false;  // never handed to the matcher
    const std::string_view text(v.GetString(), v.GetStringLength());
    // re2::StringPiece: its own class in bookworm's re2, absl::string_view in trixie's, which a
    // std::string_view does not convert to; built from pointer and length it is both.
    return simple_ ? simple_->matches(text) : RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *regex_);
  }

 private:
  PatternConstraint() = default;

  std::shared_ptr<const RE2> regex_;
  std::optional<CharClassPattern> simple_;  // set when the pattern is ^[class]{m,n}$: RE2 not needed
  uint64_t longest_ = kLongestUnboundedMatch;
};

class ConstConstraint final : public OwnConstraint<ConstConstraint> {
 public:
  static Result<ConstConstraint> from_schema(const json::Value& value) {
    ConstConstraint c;
    c.value_ = copy_of(value);
    c.set_message("must be " + describe(*c.value_));
    return c;
  }

  bool check(const json::Value& v) const override { return v == *value_; }

 private:
  ConstConstraint() = default;

  std::shared_ptr<const json::Document> value_;
};

class EnumConstraint final : public OwnConstraint<EnumConstraint> {
 public:
  static Result<EnumConstraint> from_schema(const json::Value& values) {
    if (!values.IsArray() || values.Empty()) return unusable("'enum' must be a non-empty array");
    EnumConstraint c;
    c.values_ = copy_of(values);
    std::string list;
    for (const auto& v : c.values_->GetArray()) list += (list.empty() ? "" : ", ") + describe(v);
    if (list.size() > 300) list = list.substr(0, 300) + " ...";
    c.set_message("is not one of the allowed values: " + list);
    return c;
  }

  bool check(const json::Value& v) const override {
    for (const auto& allowed : values_->GetArray()) {
      if (v == allowed) return true;
    }
    return false;
  }

 private:
  EnumConstraint() = default;

  std::shared_ptr<const json::Document> values_;
};

// "type" with the draft-7 names. "integer" means a JSON integer literal: 5.0 is refused, because
// the code reading validated documents uses RapidJSON's GetInt64 (valijson's strict mode agrees).
class TypeConstraint final : public OwnConstraint<TypeConstraint> {
 public:
  // A type name, or an array of them.
  static Result<TypeConstraint> from_schema(const json::Value& spec) {
    static constexpr std::pair<std::string_view, unsigned> kTypes[] = {
        {"null", kNull}, {"boolean", kBool},  {"object", kObject}, {"array", kArray},
        {"number", kNumber}, {"string", kString}, {"integer", kInteger}};
    std::vector<const json::Value*> named;
    if (spec.IsArray()) {
      for (const auto& v : spec.GetArray()) named.push_back(&v);
    } else {
      named.push_back(&spec);
    }
    TypeConstraint c;
    std::string names;
    for (const json::Value* v : named) {
      const std::string_view t = v->IsString() ? std::string_view(v->GetString(), v->GetStringLength()) : "";
      const auto* it = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& p) { return p.first == t; });
      if (it == std::end(kTypes)) return unusable("'type' names an unknown type");
      c.mask_ |= it->second;
      names += (names.empty() ? "" : " or ") + std::string(t);
    }
    if (c.mask_ == 0) return unusable("'type' is empty");
    c.set_message("must be of type " + names);
    return c;
  }

  bool check(const json::Value& v) const override {
    const unsigned have = v.IsNull()     ? kNull
                          : v.IsBool()   ? kBool
                          : v.IsObject() ? kObject
                          : v.IsArray()  ? kArray
                          : v.IsString() ? kString
                          : (v.IsInt64() || v.IsUint64()) ? (kInteger | kNumber)
                                                          : kNumber;
    return (have & mask_) != 0;
  }

 private:
  TypeConstraint() = default;

  static constexpr unsigned kNull = 1, kBool = 2, kObject = 4, kArray = 8, kNumber = 16, kString = 32, kInteger = 64;
  unsigned mask_ = 0;
};

// valijson hands a builder an abstract Adapter over the schema value.
template <typename C>
class Builder final : public valijson::ConstraintBuilder {
 public:
  vc::Constraint* make(const Adapter& node) const override {
    json::Document copy;
    to_rapidjson(node, copy, copy.GetAllocator());
    auto built = C::from_schema(copy);
    // valijson's parser takes a refusal only as an exception; SchemaRegistry::load catches it.
    if (!built) throw std::runtime_error(built.error().message);
    return new C(std::move(built).value());
  }
};

}  // namespace

bool OwnCheck::validate(const Adapter& target, const std::vector<std::string>& context,
                        valijson::ValidationResults* results) const {
  json::Document copy;
  to_rapidjson(target, copy, copy.GetAllocator());
  if (check(copy)) return true;
  if (results) results->pushError(context, kOwnMessage + explain());
  return false;
}

void add_own_constraints(valijson::SchemaParser& parser) {
  parser.addConstraintBuilder(std::string(kPatternKey), new Builder<PatternConstraint>());
  parser.addConstraintBuilder(std::string(kConstKey), new Builder<ConstConstraint>());
  parser.addConstraintBuilder(std::string(kEnumKey), new Builder<EnumConstraint>());
  parser.addConstraintBuilder(std::string(kTypeKey), new Builder<TypeConstraint>());
}

}  // namespace fleetmcp::schema_check
