// SessionTable: which broker session is which client.
#include <gtest/gtest.h>

#include "broker_plugin/access/session_table.h"

namespace fleetmcp::plugin {
namespace {

TEST(SessionTable, ARecycledHandleWithAnotherClientIdIsNotTheSameSession) {
  SessionTable sessions;
  int handle = 0;
  sessions.put(&handle, Session{"client-1", std::nullopt});
  EXPECT_NE(sessions.find(&handle, "client-1"), nullptr);
  EXPECT_EQ(sessions.find(&handle, "client-2"), nullptr);
  EXPECT_TRUE(sessions.end(&handle)->ended);
  sessions.drop_ended();
  EXPECT_EQ(sessions.find(&handle, "client-1"), nullptr);
}

TEST(SessionTable, ASessionRecordedAgainAfterItsEndSurvivesTheSweep) {
  SessionTable sessions;
  int handle = 0;
  sessions.put(&handle, Session{"old", std::nullopt});
  sessions.end(&handle);
  sessions.put(&handle, Session{"new", std::nullopt});
  sessions.drop_ended();
  EXPECT_NE(sessions.find(&handle, "new"), nullptr);
}

}  // namespace
}  // namespace fleetmcp::plugin
