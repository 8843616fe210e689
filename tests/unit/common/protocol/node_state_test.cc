#include "common/protocol/node_state.h"

#include <gtest/gtest.h>

#include <string_view>

#include "common/base/file_text.h"
#include "common/base/json.h"

namespace fleetmcp {
namespace {

TEST(NodeState, NamesAreTheStatusSchemasStates) {
  // schemas/status@1.0.0.json lists the states the plugin may publish, in this order.
  const json::Document schema = json::parse_strict(read_file(FLEETMCP_SOURCE_DIR "/schemas/status@1.0.0.json").value()).value();
  const json::Value& states = schema["properties"]["state"]["enum"];
  ASSERT_EQ(states.Size(), kNodeStateCount);
  for (size_t i = 0; i < kNodeStateCount; ++i) {
    const json::Value& state = states[static_cast<rapidjson::SizeType>(i)];
    ASSERT_TRUE(state.IsString());
    EXPECT_EQ(std::string_view(state.GetString(), state.GetStringLength()), node_state_name(static_cast<NodeState>(i)));
  }
  EXPECT_EQ(node_state_name(NodeState::kOnline), "online");
  EXPECT_EQ(node_state_name(NodeState::kOffline), "offline");
  EXPECT_EQ(node_state_name(NodeState::kExpired), "expired");
  EXPECT_EQ(node_state_name(NodeState::kRevoked), "revoked");
  EXPECT_EQ(static_cast<size_t>(NodeState::kRevoked) + 1, kNodeStateCount);
}

}  // namespace
}  // namespace fleetmcp
