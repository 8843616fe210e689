// The registry's own constraints for "pattern", "const", "enum" and "type", in place of
// valijson's. valijson 1.0 has no pluggable regex engine: its "pattern" keeps a std::regex cache
// inside each Validator, neither shareable between threads nor cheap to rebuild per call. Ours
// hold their compiled form in the Schema (immutable, so validating is thread-safe) and explain a
// failure naming the constraint ("does not match pattern ^[a-z]…$", "must be \"read_only\"",
// "is not one of the allowed values: …").
//
// add_own_constraints() has a valijson SchemaParser build them for the private keywords of
// keyword_renaming.h. An unusable keyword ("pattern" not a string or not a regex RE2 reads, an
// empty "enum", a "type" naming no JSON type) makes the parser throw std::runtime_error saying
// which: valijson takes a builder's refusal only as an exception, and SchemaRegistry::load (the
// start-up loader) turns it into its refusal of the file.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/base/json.h"
#include "common/registry/valijson_include.h"

namespace fleetmcp::schema_check {

// "pattern" runs on untrusted input (a device's announce on the broker thread), so a string
// longer than the schema's own "maxLength" beside it, or, where the seeds give none, than this
// (every such seed pattern matches a short identifier) fails without reaching the matcher. The
// matcher (RE2, or CharClassPattern for ^[class]{m,n}$) runs in linear time and constant stack.
// Unanchored, as JSON Schema wants, unless the pattern says ^…$.
inline constexpr size_t kLongestUnboundedMatch = 1024;

// Each of our constraints. Only add_own_constraints' builders make PolyConstraints, so every
// PolyConstraint in a compiled schema is an OwnCheck: a visitor may cast one to it.
class OwnCheck : public valijson::constraints::PolyConstraint {
 public:
  // Whether `v` passes. A value the keyword does not apply to passes ("pattern" on a number).
  virtual bool check(const json::Value& v) const = 0;
  // Why a value fails, in the words a ValidationFailure's message uses.
  virtual const std::string& explain() const = 0;

  // What valijson's own visitor calls (values inside keywords handed to it): a failure is pushed
  // as kOwnMessage followed by explain().
  bool validate(const valijson::adapters::Adapter& target, const std::vector<std::string>& context,
                valijson::ValidationResults* results) const override;

  static constexpr char kOwnMessage = '\x01';  // marks our messages among valijson's
};

// Registers the builders of the four constraints under keyword_renaming.h's private keywords.
void add_own_constraints(valijson::SchemaParser& parser);

}  // namespace fleetmcp::schema_check
