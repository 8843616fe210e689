// The error envelope's JSON (RFC-0001 §4, mcp://schemas/error@1.2.0): one shape, whether written as
// text (to_json) or put into a document as a value (error_value.h: no envelope is parsed back).
#include <gtest/gtest.h>

#include <string>

#include "common/base/error.h"
#include "common/base/error_value.h"

namespace fleetmcp {
namespace {

ErrorEnvelope every_field() {
  ErrorEnvelope e(ErrorCode::kRateLimited, "slow \"down\"", "retry after retry_after_ms");
  e.retry_after_ms = 250;
  e.correlation_id = "01HZX9K3M4P7Q8R9S0T1V2W3XY";
  e.reason = "failed_precondition";
  e.dependent_services = {"a.service", "b.service"};
  return e;
}

TEST(ErrorEnvelope, ToJsonWritesTheSchemaOrder) {
  EXPECT_EQ(every_field().to_json(),
            R"({"code":"E_RATE_LIMITED","message":"slow \"down\"","suggested_fix":"retry after retry_after_ms",)"
            R"("retry_after_ms":250,"correlation_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY",)"
            R"("details":{"reason":"failed_precondition","dependent_services":["a.service","b.service"]}})");
  EXPECT_EQ(ErrorEnvelope(ErrorCode::kInternal, "m", "f").to_json(),
            R"({"code":"E_INTERNAL","message":"m","suggested_fix":"f"})");
}

TEST(ErrorEnvelope, ErrorValueIsTheObjectToJsonWrites) {
  for (const ErrorEnvelope& e : {every_field(), ErrorEnvelope(ErrorCode::kNodeOffline, "gone", "wait")}) {
    json::Document d(rapidjson::kObjectType);
    const json::Value v = error_value(e, d.GetAllocator());
    EXPECT_EQ(json::to_string(v), e.to_json());
  }
}

TEST(ErrorEnvelope, ErrorValueOutlivesTheEnvelope) {
  json::Document d(rapidjson::kObjectType);
  json::Value v;
  {
    ErrorEnvelope e(ErrorCode::kBadRequest, std::string(600, 'x'), "fix");
    e.message += std::string(3000, 'y');  // past the clamp, and past to_json's stack pool
    v = error_value(e, d.GetAllocator());
    EXPECT_EQ(json::to_string(v), e.to_json());
  }
  EXPECT_EQ(std::string(*json::get_string(v, "message")).size(), 512u + 3000u);
}

}  // namespace
}  // namespace fleetmcp
