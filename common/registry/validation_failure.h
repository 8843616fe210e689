// What a failed validation tells its caller (ValidationFailure), and how the registry chooses it.
// Explaining a failure collects every constraint that failed as a Candidate: the fast walk's own
// (fast_visitor.h) and valijson's messages, rewritten here in the same words. The deepest, most
// specific one is reported, its location a JSON pointer. A message names the constraint that
// failed, never the sender's text (an unexpected property is not echoed), and is ASCII. Only
// for_sender() names the unexpected property: for the one who wrote the document (a tool call's
// arguments), never for a device's manifest or result.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp {

struct ValidationFailure {
  std::string path;     // JSON pointer-ish location of the failing value, e.g. "/capabilities/0/cap_id"
  std::string message;  // ASCII, says which constraint failed
  // additionalProperties: the member the schema does not allow, as the sender wrote it, and the
  // names the object allows (empty when valijson's walk, which does not list them, found it).
  std::string unknown_property;
  std::vector<std::string> allowed;

  // `message` as the document's sender reads it: an unknown property named, "has unknown property
  // 'pinn' (allowed: pin, value)". ASCII; the name clamped to 64 characters.
  std::string for_sender() const;
  // What the sender should do: what the failure itself says ("remove 'pinn' (did you mean
  // 'pin'?)"), else `otherwise`.
  std::string fix_for_sender(std::string_view otherwise) const;
};

namespace schema_check {

struct Candidate {
  std::string path, message;
  size_t depth = 0;      // 1 = the document itself
  bool summary = false;  // "a child failed" notes, less specific than the child's own error
  std::string unknown_property;       // as ValidationFailure's
  std::vector<std::string> allowed;
};

// The additionalProperties failure of an object with member `key` that the schema does not allow;
// `allowed` the object's own property names (empty: not known).
Candidate unknown_property(std::string path, size_t depth, std::string_view key, std::vector<std::string> allowed);

// The deepest candidate; at equal depth a real constraint beats a note; then the first reported.
// Without candidates: "is not valid against the schema" at "".
ValidationFailure most_specific(const std::vector<Candidate>& all);

// One JSON pointer segment: '~' and '/' escaped as "~0" and "~1".
std::string pointer_segment(std::string_view segment);

// A valijson failure as a candidate: its context ("<root>", "[capabilities]", "[0]") as a JSON
// pointer, its description in our words (an OwnCheck's message, own_constraints.h, as it is).
Candidate translate(const std::vector<std::string>& context, std::string_view description);

// A bound as the schema writes it: 5000, not valijson's "5000.000000".
std::string format_number(double d);

}  // namespace schema_check
}  // namespace fleetmcp
