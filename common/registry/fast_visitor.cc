#include "common/registry/fast_visitor.h"

#include <algorithm>
#include <cstring>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/registry/own_constraints.h"
#include "common/registry/valijson_include.h"

namespace fleetmcp::schema_check {
namespace {

namespace vc = valijson::constraints;
using valijson::Subschema;
using valijson::adapters::RapidJsonAdapter;

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
    if (!additional && matched != value_->MemberCount()) return unknown_member(c);
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
    return !value_->IsArray() || count_within(value_->Size(), true, c.getMaxItems(), "has more items than maxItems ");
  }
  bool visit(const vc::MinItemsConstraint& c) override {
    return !value_->IsArray() || count_within(value_->Size(), false, c.getMinItems(), "has fewer items than minItems ");
  }
  bool visit(const vc::MaxPropertiesConstraint& c) override {
    return !value_->IsObject() ||
           count_within(value_->MemberCount(), true, c.getMaxProperties(), "has more properties than maxProperties ");
  }
  bool visit(const vc::MinPropertiesConstraint& c) override {
    return !value_->IsObject() ||
           count_within(value_->MemberCount(), false, c.getMinProperties(), "has fewer properties than minProperties ");
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

  // An array's items or an object's members counted against a bound (`at_most`: a maximum).
  bool count_within(uint64_t count, bool at_most, uint64_t bound, std::string_view says) {
    if (at_most ? count <= bound : count >= bound) return true;
    return fail(std::string(says) + std::to_string(bound));
  }

  bool fail(std::string message, bool summary = false) {
    if (sink_) sink_->push_back({path(), std::move(message), depth_, summary});
    return false;
  }

  // An additionalProperties failure: the first member `c` does not name, and the names it does
  // (the key stays apart from the message, validation_failure.h).
  bool unknown_member(const vc::PropertiesConstraint& c) {
    if (!sink_) return false;
    std::vector<std::string> allowed;
    c.applyToProperties([&](const auto& name, const Subschema*) {
      allowed.emplace_back(name.data(), name.size());
      return true;
    });
    std::string_view key;
    for (const auto& m : value_->GetObject()) {
      key = std::string_view(m.name.GetString(), m.name.GetStringLength());
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) break;
    }
    sink_->push_back(unknown_property(path(), depth_, key, std::move(allowed)));
    return false;
  }

  bool hand_over(const vc::Constraint& c) {
    thread_local std::unordered_map<std::string, ValijsonRegex> regex_cache;  // valijson's "pattern"
    const RapidJsonAdapter target(*value_);
    if (!sink_) {
      ValidationVisitor<RapidJsonAdapter> v(target, {"<root>"}, true, nullptr, regex_cache);
      return c.accept(v);
    }
    valijson::ValidationResults results;
    ValidationVisitor<RapidJsonAdapter> v(target, context(), true, &results, regex_cache);
    const bool ok = c.accept(v);
    for (const auto& e : results) sink_->push_back(translate(e.context, e.description));
    return ok;
  }

  const valijson::Schema& root_;
  const json::Value* value_;  // the value being validated, at frame_, depth_ levels down
  const Frame* frame_;
  size_t depth_;
  std::vector<Candidate>* sink_;  // null: stop at the first failure, explain nothing
  Subschema::ApplyFunction accept_;  // each constraint accepts this visitor
};

}  // namespace

std::optional<ValidationFailure> fast_validate(const valijson::Schema& schema, const json::Value& value) {
  if (FastVisitor(schema, value, nullptr, 1, nullptr).validate(schema)) return std::nullopt;
  std::vector<Candidate> candidates;  // failed: walk again collecting every failure to explain it
  FastVisitor(schema, value, nullptr, 1, &candidates).validate(schema);
  return most_specific(candidates);
}

}  // namespace fleetmcp::schema_check
