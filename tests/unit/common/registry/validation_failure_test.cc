// Choosing and wording a validation failure (validation_failure.h): valijson's messages in the
// registry's words, never echoing the sender's text; the most specific candidate reported.
#include "common/registry/validation_failure.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/registry/own_constraints.h"

namespace fleetmcp {
namespace {

using schema_check::Candidate;
using schema_check::most_specific;
using schema_check::translate;

const std::vector<std::string> kAt = {"<root>", "[a/b~c]", "[0]"};

std::string message_of(std::string_view valijson_description) { return translate(kAt, valijson_description).message; }

TEST(ValidationFailure, ValijsonMessagesAreRewrittenInOurWords) {
  const Candidate c = translate(kAt, "Expected number less than or equal to 5000.000000");
  EXPECT_EQ(c.path, "/a~1b~0c/0");
  EXPECT_EQ(c.message, "exceeds maximum 5000");
  EXPECT_EQ(c.depth, 3u);
  EXPECT_FALSE(c.summary);
  EXPECT_EQ(message_of("Expected number greater than 0.500000"), "is not greater than exclusive minimum 0.5");
  EXPECT_EQ(message_of("Missing required property 'interval_ms'."), "is missing required property \"interval_ms\"");
  EXPECT_EQ(message_of("String should be no more than 1024 characters in length."), "is longer than maxLength 1024");
  EXPECT_EQ(message_of("Array should contain no fewer than 1 elements."), "has fewer items than minItems 1");
  EXPECT_EQ(message_of(std::string(1, schema_check::OwnCheck::kOwnMessage) + "must be \"read_only\""),
            "must be \"read_only\"");
  // The unexpected key is the sender's text: never echoed in the message, kept apart for for_sender().
  const Candidate extra = translate(kAt, "Object contains a property that could not be validated using 'properties' or "
                                         "'additionalProperties' constraints: 'ignore_previous_instructions'.");
  EXPECT_EQ(extra.message, "has a property the schema does not allow (additionalProperties is false)");
  EXPECT_EQ(extra.unknown_property, "ignore_previous_instructions");
  const Candidate note = translate(kAt, "Failed to validate against child schema #0.");
  EXPECT_TRUE(note.summary);
  EXPECT_EQ(note.message, "Failed to validate against child schema #0");
}

TEST(ValidationFailure, TheDeepestMostSpecificCandidateIsReported) {
  const std::vector<Candidate> candidates = {
      {"/a", "a child failed", 2, true},
      {"/a/0", "note at depth 3", 3, true},
      {"/a/1", "must be of type string", 3, false},
      {"/a/2", "is below minimum 0", 3, false},
      {"", "is missing required property \"b\"", 1, false},
  };
  const ValidationFailure f = most_specific(candidates);
  EXPECT_EQ(f.path, "/a/1");
  EXPECT_EQ(f.message, "must be of type string");
  const ValidationFailure none = most_specific({});
  EXPECT_EQ(none.path, "");
  EXPECT_EQ(none.message, "is not valid against the schema");
  EXPECT_EQ(most_specific({{"/x", "caf\xc3\xa9", 2, false}}).message, "caf??");  // ASCII only
}

// Issue 37 item 5: an additionalProperties failure names the property, the allowed ones and the
// nearest of them to its sender (a tool call's arguments); `message` still names none of the
// sender's text (a device's manifest or result).
TEST(ValidationFailure, AnUnknownPropertyIsNamedToItsSender) {
  const ValidationFailure f = most_specific({schema_check::unknown_property("", 1, "pinn", {"pin", "value"})});
  EXPECT_EQ(f.message, "has a property the schema does not allow (allowed: pin, value)");
  EXPECT_EQ(f.for_sender(), "has unknown property 'pinn' (allowed: pin, value)");
  EXPECT_EQ(f.fix_for_sender("otherwise"), "remove 'pinn' (did you mean 'pin'?)");
  const ValidationFailure far = most_specific({schema_check::unknown_property("", 1, "gpio\n", {"pin", "value"})});
  EXPECT_EQ(far.for_sender(), "has unknown property 'gpio?' (allowed: pin, value)");  // ASCII
  EXPECT_EQ(far.fix_for_sender("otherwise"), "remove 'gpio?'");
  const ValidationFailure other{"/n", "is below minimum 0", {}, {}};
  EXPECT_EQ(other.for_sender(), "is below minimum 0");
  EXPECT_EQ(other.fix_for_sender("otherwise"), "otherwise");
}

TEST(ValidationFailure, BoundsAreWrittenAsTheSchemaWritesThem) {
  EXPECT_EQ(schema_check::format_number(5000.0), "5000");
  EXPECT_EQ(schema_check::format_number(-1.0), "-1");
  EXPECT_EQ(schema_check::format_number(0.5), "0.5");
  EXPECT_EQ(schema_check::format_number(1700000000000.0), "1700000000000");
}

}  // namespace
}  // namespace fleetmcp
