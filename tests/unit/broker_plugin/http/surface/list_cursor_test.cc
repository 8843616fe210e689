// The opaque tools/list cursor.
#include <gtest/gtest.h>

#include "broker_plugin/http/surface/list_cursor.h"

namespace fleetmcp::http {
namespace {

TEST(CursorCodec, RoundTripsAndRejectsForgeriesAndOtherContexts) {
  CursorCodec codec, other;
  const std::string c = codec.encode("tools/list", "sysecho.x.echo.invoke");
  EXPECT_EQ(codec.decode("tools/list", c), "sysecho.x.echo.invoke");
  EXPECT_FALSE(codec.decode("schemas\nnewest-first", c));
  EXPECT_FALSE(other.decode("tools/list", c));
  std::string flipped = c;
  flipped[flipped.size() - 1] = flipped.back() == 'A' ? 'B' : 'A';
  EXPECT_FALSE(codec.decode("tools/list", flipped));
  EXPECT_FALSE(codec.decode("tools/list", ""));
}

}  // namespace
}  // namespace fleetmcp::http
