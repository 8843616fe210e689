// The requestState of a confirmation (input_required): it opens only unaltered, under the key that
// sealed it, for the caller, tool and arguments it was sealed for, before it expires.
#include "broker_plugin/http/stateless/request_state.h"

#include <gtest/gtest.h>

namespace fleetmcp::http {
namespace {

const SealedCall kCall{"acme/alice", "relay.n.relay0.set", "abc123", 1'000'000, "ct-1"};

TEST(RequestStates, ASealedCallOpensForItsBinding) {
  const RequestStates states;
  const auto opened = states.open(states.seal(kCall), "acme/alice", "relay.n.relay0.set", "abc123", 999'999);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->commit_token, "ct-1");
}

TEST(RequestStates, AnotherBindingAnExpiredOrAlteredStateIsRefused) {
  const RequestStates states;
  const std::string state = states.seal(kCall);
  EXPECT_FALSE(states.open(state, "acme/bob", "relay.n.relay0.set", "abc123", 0));
  EXPECT_FALSE(states.open(state, "acme/alice", "relay.n.relay1.set", "abc123", 0));
  EXPECT_FALSE(states.open(state, "acme/alice", "relay.n.relay0.set", "other", 0));
  EXPECT_FALSE(states.open(state, "acme/alice", "relay.n.relay0.set", "abc123", 1'000'000));
  std::string altered = state;
  altered[3] = altered[3] == 'A' ? 'B' : 'A';
  const auto opened = states.open(altered, "acme/alice", "relay.n.relay0.set", "abc123", 0);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, ErrorCode::kSafetyDenied);
  EXPECT_FALSE(states.open("not-a-state", "acme/alice", "relay.n.relay0.set", "abc123", 0));
  EXPECT_FALSE(RequestStates().open(state, "acme/alice", "relay.n.relay0.set", "abc123", 0));  // another key
}

// Fronts behind one balancer share the key (http_request_state_key_file): a state one seals opens
// at the other; a front with its own key refuses it.
TEST(RequestStates, FrontsSharingAKeyOpenEachOthersStates) {
  const std::string key(32, '\x5a');
  const RequestStates one(key);
  const RequestStates two(key);
  const auto opened = two.open(one.seal(kCall), "acme/alice", "relay.n.relay0.set", "abc123", 0);
  ASSERT_TRUE(opened);
  EXPECT_EQ(opened->commit_token, "ct-1");
  EXPECT_FALSE(RequestStates(std::string(32, '\x5b')).open(one.seal(kCall), "acme/alice", "relay.n.relay0.set", "abc123", 0));
}

}  // namespace
}  // namespace fleetmcp::http
