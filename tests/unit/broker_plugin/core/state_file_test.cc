// The plugin's state file: what survives a restart (nodes and client-id claims), refused when damaged.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "broker_plugin/core/state_file.h"
#include "common/base/error.h"

namespace fleetmcp::plugin {
namespace {

const std::string kA = "01hzx9k3m4p7q8r9s0t1v2w3xy";
const std::string kB = "01hzx9k3m4p7q8r9s0t1v2w3xz";

TEST(StateFile, RoundTripsAndRefusesDamage) {
  const auto path = (std::filesystem::temp_directory_path() / ("fleetmcp-state-" + kA + ".json")).string();
  std::remove(path.c_str());
  EXPECT_TRUE(load_state_file(path)->nodes.empty());
  ASSERT_TRUE(save_state_file(path, {.nodes = {{kA, "acme", "PEM", 1763800000000, std::string(64, 'c'), std::string(64, 'd')},
                                   {kB, "beta", "", std::nullopt, "", ""}},
                         .client_ids = {{"ops-1", {PrincipalKind::kAgent, "acme", "ops"}}}})
                  .ok());
  const PersistedState state = load_state_file(path).value();
  const auto& loaded = state.nodes;
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].node_id, kA);
  EXPECT_EQ(loaded[0].certificate_pem, "PEM");
  EXPECT_EQ(loaded[0].last_issued_at_ms, 1763800000000);
  EXPECT_EQ(loaded[0].hw_kid, std::string(64, 'd'));
  EXPECT_FALSE(loaded[1].last_issued_at_ms);
  ASSERT_EQ(state.client_ids.size(), 1u);
  EXPECT_EQ(state.client_ids[0].client_id, "ops-1");
  EXPECT_EQ(state.client_ids[0].owner, (ClaimOwner{PrincipalKind::kAgent, "acme", "ops"}));
  std::ofstream(path) << R"({"version":1,"nodes":[]})";  // written before issue 24: no client_ids
  EXPECT_TRUE(load_state_file(path)->client_ids.empty());
  std::ofstream(path) << R"({"version":1,"nodes":[],"client_ids":[{"client_id":"x","kind":"node"}]})";
  EXPECT_EQ(load_state_file(path).error().code, ErrorCode::kInternal);
  std::ofstream(path) << R"({"version":1,"nodes":[{"node_id":"nope"}]})";
  EXPECT_EQ(load_state_file(path).error().code, ErrorCode::kInternal);
  std::ofstream(path) << "{";
  EXPECT_EQ(load_state_file(path).error().code, ErrorCode::kInternal);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace fleetmcp::plugin
