#include "common/base/result.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace fleetmcp {
namespace {

Result<int> parse_digit(char c) {
  if (c < '0' || c > '9') return ErrorEnvelope(ErrorCode::kBadRequest, "not a digit", "write 0 to 9");
  return c - '0';
}

Result<std::string> twice(char c) {
  auto digit = parse_digit(c);
  if (!digit) return digit.error();  // an envelope passes through to any Result
  return std::string(2, c);
}

Status check(bool good) {
  if (!good) return ErrorEnvelope(ErrorCode::kSafetyDenied, "refused", "ask for the scope");
  return {};
}

TEST(Result, CarriesAValueOrTheEnvelope) {
  const auto seven = parse_digit('7');
  ASSERT_TRUE(seven.ok());
  EXPECT_EQ(*seven, 7);

  const auto bad = parse_digit('x');
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(bad.error().suggested_fix, "write 0 to 9");
}

TEST(Result, AnEnvelopePassesThroughToAnotherResultType) {
  EXPECT_EQ(*twice('4'), "44");
  const auto failed = twice('?');
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message, "not a digit");
}

TEST(Result, ValueOfAFailureThrowsItsEnvelope) {
  try {
    (void)parse_digit('x').value();
    FAIL() << "value() of a failed Result returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
    EXPECT_EQ(e.envelope().message, "not a digit");
  }
}

TEST(Result, HoldsMoveOnlyValues) {
  Result<std::unique_ptr<int>> owned(std::make_unique<int>(3));
  ASSERT_TRUE(owned);
  std::unique_ptr<int> taken = std::move(owned).value();
  EXPECT_EQ(*taken, 3);
}

TEST(Status, IsSuccessOrTheEnvelope) {
  EXPECT_TRUE(check(true).ok());
  const Status refused = check(false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kSafetyDenied);
  EXPECT_THROW(refused.value(), Error);
  EXPECT_NO_THROW(check(true).value());
}

// A refusal that carries more than the envelope is Result's second parameter: same ok(), error().
struct ScopeRefusal {
  ErrorEnvelope error;
  std::string required_scope;
};
enum class Full { kTable, kTenant };

Result<int, ScopeRefusal> gated(bool has_scope) {
  if (!has_scope) return ScopeRefusal{ErrorEnvelope(ErrorCode::kSafetyDenied, "scope missing", "step up"), "fleet:write"};
  return 1;
}

TEST(Result, ARefusalTypeCarriesWhatTheEnvelopeCannot) {
  EXPECT_EQ(*gated(true), 1);
  const auto refused = gated(false);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().required_scope, "fleet:write");
  EXPECT_EQ(refused.error().error.code, ErrorCode::kSafetyDenied);
}

TEST(Result, ValueOfARefusalThrowsTheEnvelopeItContains) {
  try {
    (void)gated(false).value();
    FAIL() << "value() of a refused Result returned";
  } catch (const Error& e) {
    EXPECT_EQ(e.envelope().message, "scope missing");
  }
  // A refusal without an envelope (an enum) still fails loudly: value() was not checked.
  const Result<int, Full> full(Full::kTenant);
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error(), Full::kTenant);
  EXPECT_THROW((void)full.value(), Error);
  const Result<void, Full> status(Full::kTable);
  EXPECT_FALSE(status.ok());
  EXPECT_THROW(status.value(), Error);
}

}  // namespace
}  // namespace fleetmcp
