// SchemaRegistry: the schemas/ directory, verified against index.json, compiled once with valijson.
//
// How the documents reach valijson (the published bytes are never changed):
// - valijson 1.0 implements draft 7. The seeds declare draft 2020-12 but use only keywords whose
//   meaning is the same in draft 7, plus "$defs". valijson resolves "$ref": "#/$defs/Capability"
//   as a plain JSON pointer into the document, so "$defs" needs no special handling; "$id" and
//   "$schema" are ignored by it (it reads the draft-4 "id" only).
// - Before compiling, an in-memory copy of each document has its "pattern", "const", "enum" and
//   "type" keywords (in schema positions only) renamed to private keywords served by our own
//   constraints (OwnCheck below). valijson 1.0 has no pluggable regex engine: its "pattern" check
//   keeps a std::regex cache inside each Validator, neither shareable between threads nor cheap
//   to rebuild per call. Ours hold their compiled form in the Schema (immutable, so validate() is
//   thread-safe) and explain failures naming the constraint ("does not match pattern ^[a-z]…$",
//   "must be \"read_only\"", "is not one of the allowed values: …").
//
// How documents are validated: valijson's Schema (the compiled constraint tree) is walked by
// FastVisitor, a valijson ConstraintVisitor that keeps the current location as a chain of stack
// frames instead of valijson's per-node std::vector<std::string> copies. The keywords the
// published documents use are checked in place; any other constraint is handed to valijson's own
// ValidationVisitor for that value, so every draft-7 keyword valijson knows still works. This is
// what keeps a 16-capability manifest in the low microseconds (valijson's visitor alone took
// ~150 us, mostly allocating paths). The unit tests check both walks agree on every document.
#include "common/registry/schema_registry.h"

#include <re2/re2.h>

#include "common/registry/valijson_include.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <regex>
#include <unordered_map>

#include "common/registry/char_class_pattern.h"
#include "common/crypto/digest.h"
#include "common/base/file_text.h"
#include "common/base/error.h"

namespace fleetmcp {
namespace {

namespace fs = std::filesystem;
namespace vc = valijson::constraints;
using valijson::Subschema;
using valijson::adapters::Adapter;
using valijson::adapters::RapidJsonAdapter;

constexpr std::string_view kSchemaPrefix = "mcp://schemas/";
constexpr std::string_view kKindsPrefix = "mcp://registry/kinds@";

constexpr std::string_view kPatternKey = "x-fleetmcp-pattern";
constexpr std::string_view kConstKey = "x-fleetmcp-const";
constexpr std::string_view kEnumKey = "x-fleetmcp-enum";
constexpr std::string_view kTypeKey = "x-fleetmcp-type";

// A bound as the schema writes it: 5000, not valijson's "5000.000000".
std::string format_number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 9e15) return std::to_string(static_cast<int64_t>(d));
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, d);
  return std::string(buf, r.ptr);
}

std::string format_number(std::string_view text) {  // from a valijson message
  const std::string s(text);
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  return end == s.c_str() ? s : format_number(d);
}

// Compact JSON of a schema value, for messages ("read_only" is shown as "\"read_only\"").
std::string describe(const json::Value& v) { return json::to_string(v); }

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

// ---------------------------------------------------------------------------------------------
// Our constraints. valijson copies constraints (clone), so heavy parts sit behind shared_ptr to
// immutable data. Every PolyConstraint in a compiled schema is an OwnCheck: only our builders
// create PolyConstraints.

class OwnCheck : public vc::PolyConstraint {
 public:
  virtual bool check(const json::Value& v) const = 0;
  virtual const std::string& explain() const = 0;

  // valijson's own visitor (used for keywords FastVisitor hands over) calls this one.
  bool validate(const Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override {
    json::Document copy;
    to_rapidjson(target, copy, copy.GetAllocator());
    if (check(copy)) return true;
    if (results) results->pushError(context, kOwnMessage + explain());
    return false;
  }

  static constexpr char kOwnMessage = '\x01';  // marks our messages among valijson's
};

template <typename Derived>
class OwnConstraint : public OwnCheck {
 private:
  Constraint* cloneInto(void* ptr) const override { return new (ptr) Derived(static_cast<const Derived&>(*this)); }
  size_t sizeOf() const override { return sizeof(Derived); }
};

// "pattern": the seeds' ECMA-262 patterns (character classes, groups, alternation, bounded
// repeats: the subset RE2 reads the same way), matched with RE2. Patterns run on untrusted input
// (a device's announce on the broker thread), so the matcher must neither backtrack nor recurse
// per character: RE2 runs in time linear in the input and in constant stack. Before any pattern
// runs, the string's length is bounded: by the schema's own "maxLength" beside the pattern, or,
// where the seeds give none, by kLongestUnboundedMatch (every such seed pattern matches a short
// identifier). Unanchored, as JSON Schema wants, unless the pattern says ^…$.
constexpr size_t kLongestUnboundedMatch = 1024;

class PatternConstraint final : public OwnConstraint<PatternConstraint> {
 public:
  // {"regex": "<pattern>", "maxLength": n?}: rename_keywords() folds the sibling maxLength in.
  explicit PatternConstraint(const json::Value& spec) {
    const auto regex = spec.IsObject() ? spec.FindMember("regex") : spec.MemberEnd();
    if (!spec.IsObject() || regex == spec.MemberEnd() || !regex->value.IsString()) {
      throw std::runtime_error("'pattern' must be a string");
    }
    const std::string p(regex->value.GetString(), regex->value.GetStringLength());
    RE2::Options options;
    options.set_log_errors(false);
    regex_ = std::make_shared<const RE2>(p, options);
    if (!regex_->ok()) throw std::runtime_error("'pattern' " + p + " is not a supported regex: " + regex_->error());
    simple_ = CharClassPattern::recognise(p);
    const auto max = spec.FindMember("maxLength");
    longest_ = max != spec.MemberEnd() && max->value.IsUint64() ? max->value.GetUint64() : kLongestUnboundedMatch;
    message_ = std::make_shared<const std::string>("does not match pattern " + p + " (or is longer than " +
                                                   std::to_string(longest_) + " characters)");
  }

  bool check(const json::Value& v) const override {
    if (!v.IsString()) return true;
    if (v.GetStringLength() > longest_) return false;  // never handed to the matcher
    const std::string_view text(v.GetString(), v.GetStringLength());
    return simple_ ? simple_->matches(text) : RE2::PartialMatch(text, *regex_);
  }
  const std::string& explain() const override { return *message_; }

 private:
  std::shared_ptr<const RE2> regex_;
  std::optional<CharClassPattern> simple_;  // set when the pattern is ^[class]{m,n}$: RE2 not needed
  uint64_t longest_ = kLongestUnboundedMatch;
  std::shared_ptr<const std::string> message_;
};

class ConstConstraint final : public OwnConstraint<ConstConstraint> {
 public:
  explicit ConstConstraint(const json::Value& value) {
    auto doc = std::make_shared<json::Document>();
    doc->CopyFrom(value, doc->GetAllocator());
    message_ = std::make_shared<const std::string>("must be " + describe(*doc));
    value_ = std::move(doc);
  }

  bool check(const json::Value& v) const override { return v == *value_; }
  const std::string& explain() const override { return *message_; }

 private:
  std::shared_ptr<const json::Document> value_;
  std::shared_ptr<const std::string> message_;
};

class EnumConstraint final : public OwnConstraint<EnumConstraint> {
 public:
  explicit EnumConstraint(const json::Value& values) {
    if (!values.IsArray() || values.Empty()) throw std::runtime_error("'enum' must be a non-empty array");
    auto doc = std::make_shared<json::Document>();
    doc->CopyFrom(values, doc->GetAllocator());
    std::string list;
    for (const auto& v : doc->GetArray()) list += (list.empty() ? "" : ", ") + describe(v);
    if (list.size() > 300) list = list.substr(0, 300) + " ...";
    message_ = std::make_shared<const std::string>("is not one of the allowed values: " + list);
    values_ = std::move(doc);
  }

  bool check(const json::Value& v) const override {
    for (const auto& allowed : values_->GetArray()) {
      if (v == allowed) return true;
    }
    return false;
  }
  const std::string& explain() const override { return *message_; }

 private:
  std::shared_ptr<const json::Document> values_;
  std::shared_ptr<const std::string> message_;
};

// "type" with the draft-7 names. "integer" means a JSON integer literal: 5.0 is refused, because
// the code reading validated documents uses RapidJSON's GetInt64 (valijson's strict mode agrees).
class TypeConstraint final : public OwnConstraint<TypeConstraint> {
 public:
  explicit TypeConstraint(const json::Value& spec) {
    std::string names;
    const auto add = [&](const json::Value& v) {
      static constexpr std::pair<std::string_view, unsigned> kTypes[] = {
          {"null", kNull}, {"boolean", kBool},  {"object", kObject}, {"array", kArray},
          {"number", kNumber}, {"string", kString}, {"integer", kInteger}};
      const std::string_view t = v.IsString() ? std::string_view(v.GetString(), v.GetStringLength()) : "";
      const auto* it = std::find_if(std::begin(kTypes), std::end(kTypes), [&](const auto& p) { return p.first == t; });
      if (it == std::end(kTypes)) throw std::runtime_error("'type' names an unknown type");
      mask_ |= it->second;
      names += (names.empty() ? "" : " or ") + std::string(t);
    };
    if (spec.IsArray()) {
      for (const auto& v : spec.GetArray()) add(v);
    } else {
      add(spec);
    }
    if (mask_ == 0) throw std::runtime_error("'type' is empty");
    message_ = std::make_shared<const std::string>("must be of type " + names);
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
  const std::string& explain() const override { return *message_; }

 private:
  static constexpr unsigned kNull = 1, kBool = 2, kObject = 4, kArray = 8, kNumber = 16, kString = 32, kInteger = 64;
  unsigned mask_ = 0;
  std::shared_ptr<const std::string> message_;
};

// valijson hands a builder an abstract Adapter over the schema value.
template <typename C>
class Builder final : public valijson::ConstraintBuilder {
 public:
  vc::Constraint* make(const Adapter& node) const override {
    json::Document copy;
    to_rapidjson(node, copy, copy.GetAllocator());
    return new C(copy);
  }
};

// ---------------------------------------------------------------------------------------------
// Keyword renaming on the in-memory copy: only objects in schema positions are touched, so a
// property *named* "pattern" or an "enum" inside a "const" value is left alone.

void rename_keywords(json::Value& schema, json::Allocator& alloc);

void rename_in_map(json::Value& map, json::Allocator& alloc) {
  if (!map.IsObject()) return;
  for (auto& m : map.GetObject()) rename_keywords(m.value, alloc);
}

void rename_in_array(json::Value& arr, json::Allocator& alloc) {
  if (!arr.IsArray()) return;
  for (auto& v : arr.GetArray()) rename_keywords(v, alloc);
}

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

// ---------------------------------------------------------------------------------------------
// Failures: candidates collected while explaining, then the most specific one.

struct Candidate {
  std::string path, message;
  size_t depth = 0;      // 1 = the document itself
  bool summary = false;  // "a child failed" notes, less specific than the child's own error
};

ValidationFailure most_specific(const std::vector<Candidate>& all) {
  const Candidate* best = nullptr;
  for (const auto& c : all) {
    // Deepest wins; at equal depth a real constraint beats a note; then the first reported.
    if (!best || c.depth > best->depth || (c.depth == best->depth && best->summary && !c.summary)) best = &c;
  }
  if (!best) return {"", "is not valid against the schema"};
  return {best->path, ascii_clamp(best->message)};
}

std::string pointer_segment(std::string_view seg) {  // JSON pointer escapes '~' and '/'
  std::string out;
  for (char c : seg) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// valijson's context ("<root>", "[capabilities]", "[0]") as a JSON pointer.
std::string pointer(const std::vector<std::string>& context) {
  std::string p;
  for (size_t i = 1; i < context.size(); ++i) {
    std::string_view seg = context[i];
    if (seg.size() >= 2 && seg.front() == '[' && seg.back() == ']') seg = seg.substr(1, seg.size() - 2);
    p += "/" + pointer_segment(seg);
  }
  return p;
}

bool consume(std::string_view s, std::string_view prefix, std::string_view& rest) {
  if (!s.starts_with(prefix)) return false;
  rest = s.substr(prefix.size());
  return true;
}

// A valijson message (from a keyword FastVisitor handed over) in our words.
Candidate translate(const valijson::ValidationResults::Error& e) {
  Candidate c{pointer(e.context), "", e.context.size(), false};
  std::string_view d = e.description, rest;
  const auto first_word = [](std::string_view s) { return std::string(s.substr(0, s.find(' '))); };
  const auto strip = [](std::string_view s) {
    while (!s.empty() && (s.back() == '.' || s.back() == '\'')) s.remove_suffix(1);
    return std::string(s);
  };
  if (!d.empty() && d.front() == OwnCheck::kOwnMessage) {
    c.message = std::string(d.substr(1));
  } else if (consume(d, "Missing required property '", rest)) {
    c.message = "is missing required property \"" + strip(rest) + "\"";
  } else if (d.starts_with("Object contains a property that could not be validated")) {
    // The offending key is the sender's text: it is not echoed (messages carry no device strings).
    c.message = "has a property the schema does not allow (additionalProperties is false)";
  } else if (consume(d, "Expected number less than or equal to ", rest)) {
    c.message = "exceeds maximum " + format_number(rest);
  } else if (consume(d, "Expected number less than ", rest)) {
    c.message = "is not less than exclusive maximum " + format_number(rest);
  } else if (consume(d, "Expected number greater than or equal to ", rest)) {
    c.message = "is below minimum " + format_number(rest);
  } else if (consume(d, "Expected number greater than ", rest)) {
    c.message = "is not greater than exclusive minimum " + format_number(rest);
  } else if (consume(d, "String should be no more than ", rest)) {
    c.message = "is longer than maxLength " + first_word(rest);
  } else if (consume(d, "String should be no fewer than ", rest)) {
    c.message = "is shorter than minLength " + first_word(rest);
  } else if (consume(d, "Array should contain no more than ", rest)) {
    c.message = "has more items than maxItems " + first_word(rest);
  } else if (consume(d, "Array should contain no fewer than ", rest)) {
    c.message = "has fewer items than minItems " + first_word(rest);
  } else if (d.find("violate uniqueness constraint") != std::string_view::npos) {
    c.message = "has duplicate items (uniqueItems)";
  } else {
    c.message = ascii_clamp(strip(d));
    c.summary = d.starts_with("Failed to validate");  // "a child schema failed" notes
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// FastVisitor.

// The location being validated: a chain of frames on the stack, turned into a string only when
// a failure is explained.
struct Frame {
  const Frame* parent;
  std::string_view key;  // property name (always a name from the schema), or empty for an index
  size_t index;
};

size_t utf8_length(const json::Value& s) {  // code points, as JSON Schema counts string length
  size_t n = 0;
  const char* p = s.GetString();
  for (size_t i = 0; i < s.GetStringLength(); ++i) n += (static_cast<unsigned char>(p[i]) & 0xC0) != 0x80;
  return n;
}

class FastVisitor final : public vc::ConstraintVisitor {
 public:
  FastVisitor(const valijson::Schema& root, const json::Value& value, const Frame* frame, size_t depth,
              std::vector<Candidate>* sink)
      : root_(root), value_(&value), frame_(frame), depth_(depth), sink_(sink),
        accept_([this](const vc::Constraint& c) { return c.accept(*this); }) {}
  FastVisitor(const FastVisitor&) = delete;  // accept_ refers to this visitor
  FastVisitor& operator=(const FastVisitor&) = delete;

  bool validate(const Subschema& schema) {
    // A `false` schema (e.g. "error" in a successful cmd_ack) says where, not what: ranked like a
    // note, so a real constraint failing at the same depth is the one reported.
    if (schema.getAlwaysInvalid()) return fail("is not allowed here (its schema is false)", true);
    // Explaining visits every constraint, so the most specific failure can be chosen.
    return sink_ ? schema.apply(accept_) : schema.applyStrict(accept_);
  }

  // A member or item of the current value against its subschema, by this same visitor moved down
  // one level and back (one visitor and one std::function per document, not per value).
  bool validate_child(const json::Value& child, const Frame& frame, const Subschema& schema) {
    const json::Value* const parent = value_;
    const Frame* const parent_frame = frame_;
    value_ = &child;
    frame_ = &frame;
    ++depth_;
    const bool ok = validate(schema);
    value_ = parent;
    frame_ = parent_frame;
    --depth_;
    return ok;
  }

  bool visit(const vc::AllOfConstraint& c) override {
    bool ok = true;
    c.applyToSubschemas([&](unsigned, const Subschema* s) {
      ok = validate(*s) && ok;
      return ok || sink_ != nullptr;
    });
    return ok;
  }

  bool visit(const vc::ConditionalConstraint& c) override {
    // "if" is a test, not a requirement: its failures are never reported.
    FastVisitor test(root_, *value_, frame_, depth_, nullptr);
    const Subschema* branch = test.validate(*c.getIfSubschema()) ? c.getThenSubschema() : c.getElseSubschema();
    return branch == nullptr || validate(*branch);
  }

  bool visit(const vc::PropertiesConstraint& c) override {
    if (!value_->IsObject()) return true;
    const Subschema* additional = c.getAdditionalPropertiesSubschema();
    bool has_pattern_properties = false;
    c.applyToPatternProperties([&](const auto&, const Subschema*) { return !(has_pattern_properties = true); });
    // "additionalProperties" schemas and patternProperties: valijson's walk. (Its paths then name
    // the sender's own keys; no published document uses either keyword.)
    if (has_pattern_properties || (additional && additional != root_.emptySubschema())) return hand_over(c);

    bool ok = true;
    size_t matched = 0;
    c.applyToProperties([&](const auto& name, const Subschema* s) {
      const std::string_view key(name.data(), name.size());
      const json::Value* member = find_member(key);
      if (!member) return true;
      ++matched;
      const Frame frame{frame_, key, 0};
      ok = validate_child(*member, frame, *s) && ok;
      return ok || sink_ != nullptr;
    });
    if (!ok && !sink_) return false;
    // parse_strict refuses duplicate keys, so every unmatched member is an additional property.
    if (!additional && matched != value_->MemberCount()) {
      // The offending key is the sender's text: it is not echoed (messages carry no device strings).
      return fail("has a property the schema does not allow (additionalProperties is false)");
    }
    return ok;
  }

  bool visit(const vc::RequiredConstraint& c) override {
    if (!value_->IsObject()) return true;
    bool ok = true;
    c.applyToRequiredProperties([&](const auto& name) {
      const std::string_view key(name.data(), name.size());
      if (find_member(key)) return true;
      ok = fail("is missing required property \"" + std::string(key) + "\"");
      return sink_ != nullptr;
    });
    return ok;
  }

  bool visit(const vc::SingularItemsConstraint& c) override {
    if (!value_->IsArray() || !c.getItemsSubschema()) return true;
    bool ok = true;
    for (rapidjson::SizeType i = 0; i < value_->Size(); ++i) {
      const Frame frame{frame_, {}, i};
      ok = validate_child((*value_)[i], frame, *c.getItemsSubschema()) && ok;
      if (!ok && !sink_) return false;
    }
    return ok;
  }

  bool visit(const vc::MaximumConstraint& c) override {
    if (!value_->IsNumber()) return true;
    const double v = value_->GetDouble(), max = c.getMaximum();
    if (c.getExclusiveMaximum() ? v < max : v <= max) return true;
    return fail((c.getExclusiveMaximum() ? "is not less than exclusive maximum " : "exceeds maximum ") +
                format_number(max));
  }

  bool visit(const vc::MinimumConstraint& c) override {
    if (!value_->IsNumber()) return true;
    const double v = value_->GetDouble(), min = c.getMinimum();
    if (c.getExclusiveMinimum() ? v > min : v >= min) return true;
    return fail((c.getExclusiveMinimum() ? "is not greater than exclusive minimum " : "is below minimum ") +
                format_number(min));
  }

  bool visit(const vc::MaxLengthConstraint& c) override {
    // A string has no more characters than bytes: most are short enough without counting.
    if (!value_->IsString() || value_->GetStringLength() <= c.getMaxLength() || utf8_length(*value_) <= c.getMaxLength()) {
      return true;
    }
    return fail("is longer than maxLength " + std::to_string(c.getMaxLength()));
  }

  bool visit(const vc::MinLengthConstraint& c) override {
    if (!value_->IsString() || utf8_length(*value_) >= c.getMinLength()) return true;
    return fail("is shorter than minLength " + std::to_string(c.getMinLength()));
  }

  bool visit(const vc::MaxItemsConstraint& c) override {
    if (!value_->IsArray() || value_->Size() <= c.getMaxItems()) return true;
    return fail("has more items than maxItems " + std::to_string(c.getMaxItems()));
  }

  bool visit(const vc::MinItemsConstraint& c) override {
    if (!value_->IsArray() || value_->Size() >= c.getMinItems()) return true;
    return fail("has fewer items than minItems " + std::to_string(c.getMinItems()));
  }

  bool visit(const vc::MaxPropertiesConstraint& c) override {
    if (!value_->IsObject() || value_->MemberCount() <= c.getMaxProperties()) return true;
    return fail("has more properties than maxProperties " + std::to_string(c.getMaxProperties()));
  }

  bool visit(const vc::MinPropertiesConstraint& c) override {
    if (!value_->IsObject() || value_->MemberCount() >= c.getMinProperties()) return true;
    return fail("has fewer properties than minProperties " + std::to_string(c.getMinProperties()));
  }

  bool visit(const vc::UniqueItemsConstraint&) override {
    if (!value_->IsArray()) return true;
    for (rapidjson::SizeType i = 0; i < value_->Size(); ++i) {
      for (rapidjson::SizeType j = i + 1; j < value_->Size(); ++j) {
        if ((*value_)[i] == (*value_)[j]) return fail("has duplicate items (uniqueItems)");
      }
    }
    return true;
  }

  bool visit(const vc::PolyConstraint& c) override {
    const auto& own = static_cast<const OwnCheck&>(c);  // only our builders make PolyConstraints
    return own.check(*value_) || fail(own.explain());
  }

  // Everything else (anyOf, oneOf, not, contains, dependencies, format, multipleOf, tuple items,
  // propertyNames, and valijson's own const/enum/pattern/type, which renaming leaves unused):
  // valijson's own walk, for this value only.
  bool visit(const vc::AnyOfConstraint& c) override { return hand_over(c); }
  bool visit(const vc::ConstConstraint& c) override { return hand_over(c); }
  bool visit(const vc::ContainsConstraint& c) override { return hand_over(c); }
  bool visit(const vc::DependenciesConstraint& c) override { return hand_over(c); }
  bool visit(const vc::EnumConstraint& c) override { return hand_over(c); }
  bool visit(const vc::FormatConstraint& c) override { return hand_over(c); }
  bool visit(const vc::LinearItemsConstraint& c) override { return hand_over(c); }
  bool visit(const vc::MultipleOfDoubleConstraint& c) override { return hand_over(c); }
  bool visit(const vc::MultipleOfIntConstraint& c) override { return hand_over(c); }
  bool visit(const vc::NotConstraint& c) override { return hand_over(c); }
  bool visit(const vc::OneOfConstraint& c) override { return hand_over(c); }
  bool visit(const vc::PatternConstraint& c) override { return hand_over(c); }
  bool visit(const vc::PropertyNamesConstraint& c) override { return hand_over(c); }
  bool visit(const vc::TypeConstraint& c) override { return hand_over(c); }

 private:
  const json::Value* find_member(std::string_view key) const {
    for (const auto& m : value_->GetObject()) {
      const char* name = m.name.GetString();
      if (m.name.GetStringLength() == key.size() && !key.empty() && name[0] == key[0] &&
          std::memcmp(name, key.data(), key.size()) == 0) {
        return &m.value;
      }
    }
    if (key.empty()) {  // "" is a valid property name
      for (const auto& m : value_->GetObject()) {
        if (m.name.GetStringLength() == 0) return &m.value;
      }
    }
    return nullptr;
  }

  std::string path() const {
    std::vector<const Frame*> chain;
    for (const Frame* f = frame_; f; f = f->parent) chain.push_back(f);
    std::string p;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      p += "/" + ((*it)->key.empty() ? std::to_string((*it)->index) : pointer_segment((*it)->key));
    }
    return p;
  }

  std::vector<std::string> context() const {  // valijson's form of path()
    std::vector<std::string> ctx;
    for (const Frame* f = frame_; f; f = f->parent) {
      ctx.push_back("[" + (f->key.empty() ? std::to_string(f->index) : std::string(f->key)) + "]");
    }
    ctx.push_back("<root>");
    std::reverse(ctx.begin(), ctx.end());
    return ctx;
  }

  bool fail(std::string message, bool summary = false) {
    if (sink_) sink_->push_back({path(), std::move(message), depth_, summary});
    return false;
  }

  bool hand_over(const vc::Constraint& c) {
    thread_local std::unordered_map<std::string, std::regex> regex_cache;  // valijson's "pattern"
    const RapidJsonAdapter target(*value_);
    if (!sink_) {
      valijson::ValidationVisitor<RapidJsonAdapter> v(target, {"<root>"}, true, nullptr, regex_cache);
      return c.accept(v);
    }
    valijson::ValidationResults results;
    valijson::ValidationVisitor<RapidJsonAdapter> v(target, context(), true, &results, regex_cache);
    const bool ok = c.accept(v);
    for (const auto& e : results) sink_->push_back(translate(e));
    return ok;
  }

  const valijson::Schema& root_;
  const json::Value* value_;  // the value being validated, at frame_, depth_ levels down
  const Frame* frame_;
  size_t depth_;
  std::vector<Candidate>* sink_;  // null: stop at the first failure, explain nothing
  Subschema::ApplyFunction accept_;  // each constraint accepts this visitor
};

// ---------------------------------------------------------------------------------------------
// Loading.

[[noreturn]] void refuse(const std::string& file, const std::string& why) {
  throw Error(ErrorCode::kInternal, "schema registry: " + file + ": " + why,
              "restore the schemas directory from the release (or run scripts/update-schema-index.sh after "
              "an intended change); the registry refuses to start on an unverified schema file");
}

// parse_strict's error names a byte offset; the operator also needs the file.
json::Document parse_file(const std::string& path, std::string_view bytes) {
  auto parsed = json::parse_strict(bytes, ErrorCode::kInternal);
  if (!parsed) refuse(path, "is not strict JSON: " + parsed.error().message);
  return std::move(parsed).value();
}

bool is_lower_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// A bare file name: nothing that could leave the schemas directory.
bool is_plain_file_name(std::string_view f) {
  return !f.empty() && f[0] != '.' && f.find('/') == std::string_view::npos &&
         f.find('\\') == std::string_view::npos && f.find('\0') == std::string_view::npos;
}

// "<name>@<semver>" → (name, version); name is dotted lowercase as in the manifest's schema_ref.
std::optional<std::pair<std::string, SemVer>> split_name_version(std::string_view s) {
  const size_t at = s.rfind('@');
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  const auto name = s.substr(0, at);
  const bool ok = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
  auto version = SemVer::parse(s.substr(at + 1));
  if (!ok || !version) return std::nullopt;
  return std::make_pair(std::string(name), std::move(*version));
}

std::string full_id(std::string_view id) {
  return id.starts_with(kSchemaPrefix) ? std::string(id) : std::string(kSchemaPrefix) + std::string(id);
}

}  // namespace

struct SchemaRegistry::Compiled {
  valijson::Schema schema;
};

SchemaRegistry::SchemaRegistry() = default;
SchemaRegistry::~SchemaRegistry() = default;

std::string SchemaRegistry::default_dir() {
  if (const char* env = std::getenv("FLEETMCP_SCHEMAS"); env && *env) return env;
  std::error_code ec;
  if (fs::exists(fs::path(FLEETMCP_INSTALL_SCHEMAS_DIR) / "index.json", ec)) return FLEETMCP_INSTALL_SCHEMAS_DIR;
  return FLEETMCP_SOURCE_SCHEMAS_DIR;
}

std::shared_ptr<const SchemaRegistry> SchemaRegistry::load(const std::string& dir) {
  std::shared_ptr<SchemaRegistry> reg(new SchemaRegistry());
  const fs::path base(dir);
  const std::string index_name = (base / "index.json").string();
  const auto index_text = try_read_file((base / "index.json").string());
  if (!index_text) refuse(index_name, "is missing or unreadable");
  const auto index = parse_file(index_name, *index_text);
  if (!index.IsArray() || index.Empty()) refuse(index_name, "must be a non-empty array of {id, file, sha256}");

  std::optional<std::string> kinds_file;
  valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
  parser.addConstraintBuilder(std::string(kPatternKey), new Builder<PatternConstraint>());
  parser.addConstraintBuilder(std::string(kConstKey), new Builder<ConstConstraint>());
  parser.addConstraintBuilder(std::string(kEnumKey), new Builder<EnumConstraint>());
  parser.addConstraintBuilder(std::string(kTypeKey), new Builder<TypeConstraint>());

  for (const auto& row : index.GetArray()) {
    const auto id = row.IsObject() ? json::get_string(row, "id") : std::nullopt;
    const auto file = row.IsObject() ? json::get_string(row, "file") : std::nullopt;
    const auto sha = row.IsObject() ? json::get_string(row, "sha256") : std::nullopt;
    if (!id || !file || !sha || row.MemberCount() != 3) {
      refuse(index_name, "has a row that is not {\"id\", \"file\", \"sha256\"}");
    }
    if (!is_plain_file_name(*file)) refuse(index_name, "names a file outside the directory: " + std::string(*file));
    if (!is_lower_hex64(*sha)) refuse(index_name, "has a sha256 that is not 64 lowercase hex digits");
    const std::string path = (base / std::string(*file)).string();

    // RFC 004 §5.3: verify the bytes before anything else reads them.
    auto bytes = try_read_file((base / std::string(*file)).string());
    if (!bytes) refuse(path, "is missing or unreadable");
    const std::string actual = sha256_hex(*bytes);
    if (actual != *sha) refuse(path, "SHA-256 " + actual + " does not match index.json (" + std::string(*sha) + ")");

    const auto doc = parse_file(path, *bytes);
    const auto doc_id = doc.IsObject() ? json::get_string(doc, "$id") : std::nullopt;
    if (!doc_id || *doc_id != *id) refuse(path, "$id does not match the id in index.json (" + std::string(*id) + ")");

    if (id->starts_with(kKindsPrefix)) {
      if (kinds_file) refuse(path, "is a second kind registry (first: " + *kinds_file + ")");
      reg->kinds_ = KindRegistry::from_json(doc, path);
      kinds_file = path;
      continue;
    }
    const auto nv =
        id->starts_with(kSchemaPrefix) ? split_name_version(id->substr(kSchemaPrefix.size())) : std::nullopt;
    if (!nv) refuse(path, "$id is not mcp://schemas/<name>@<semver>");
    if (*file != std::string(id->substr(kSchemaPrefix.size())) + ".json") {
      refuse(path, "file name must be <name>@<version>.json for its $id");
    }
    if (reg->docs_.count(*id)) refuse(path, "$id is listed twice in index.json");

    json::Document prepared;
    prepared.CopyFrom(doc, prepared.GetAllocator());
    rename_keywords(prepared, prepared.GetAllocator());
    auto compiled = std::make_unique<Compiled>();
    try {
      parser.populateSchema(RapidJsonAdapter(prepared), compiled->schema);
    } catch (const std::exception& e) {  // valijson reports an unusable schema by throwing
      refuse(path, "is not a schema valijson can compile: " + ascii_clamp(e.what(), 200));
    }

    SchemaDocument sd{std::string(*id), nv->first, nv->second, std::string(*file), std::move(*bytes), actual};
    reg->compiled_.emplace(sd.id, std::move(compiled));
    reg->docs_.emplace(sd.id, std::move(sd));
  }

  if (!kinds_file) refuse(index_name, "lists no kind registry (" + std::string(kKindsPrefix) + "...)");
  // Every schema a kind row names must be here: a tool is never listed without its schemas.
  for (const auto& k : reg->kinds_.all()) {
    std::vector<std::string_view> refs{k.schema_ref};
    for (const auto& v : k.verbs) refs.insert(refs.end(), {v.input_schema, v.output_schema});
    for (const auto ref : refs) {
      if (!reg->find(ref)) {
        refuse(*kinds_file, "kind " + k.kind + " names " + std::string(ref) + ", which is not in index.json");
      }
    }
  }
  return reg;
}

const SchemaDocument* SchemaRegistry::find(std::string_view id) const {
  const auto it = docs_.find(full_id(id));
  return it == docs_.end() ? nullptr : &it->second;
}

std::vector<const SchemaDocument*> SchemaRegistry::versions(std::string_view name) const {
  std::vector<const SchemaDocument*> out;
  for (const auto& [id, doc] : docs_) {
    if (doc.name == name) out.push_back(&doc);
  }
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) { return b->version < a->version; });
  return out;
}

const SchemaDocument* SchemaRegistry::resolve(std::string_view name, const SemVerRange& range) const {
  for (const auto* doc : versions(name)) {
    if (range.contains(doc->version)) return doc;
  }
  return nullptr;
}

std::vector<const SchemaDocument*> SchemaRegistry::list() const {
  std::vector<const SchemaDocument*> out;
  for (const auto& [id, doc] : docs_) out.push_back(&doc);
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    if (a->name != b->name) return a->name < b->name;
    return b->version < a->version;
  });
  return out;
}

std::optional<ValidationFailure> SchemaRegistry::validate(std::string_view id, const json::Value& doc) const {
  // A full id (as the kinds and the plugin name them) is looked up as it is, without a copy.
  const auto it = id.starts_with(kSchemaPrefix) ? compiled_.find(id) : compiled_.find(full_id(id));
  if (it == compiled_.end()) return ValidationFailure{"", "schema registry has no schema " + ascii_clamp(id, 200)};
  const valijson::Schema& schema = it->second->schema;
  if (FastVisitor(schema, doc, nullptr, 1, nullptr).validate(schema)) return std::nullopt;
  std::vector<Candidate> candidates;  // failed: walk again collecting every failure to explain it
  FastVisitor(schema, doc, nullptr, 1, &candidates).validate(schema);
  return most_specific(candidates);
}

}  // namespace fleetmcp
