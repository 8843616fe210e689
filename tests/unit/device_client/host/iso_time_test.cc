// ISO 8601 times of the catalogue's documents: round trip and refusals.
#include <gtest/gtest.h>

#include "common/base/error.h"
#include "device_client/host/iso_time.h"

namespace fleetmcp::device {
namespace {

TEST(CatalogueTime, IsoRoundTripAndRejects) {
  EXPECT_EQ(iso_utc_from_ms(1763800000000), "2025-11-22T08:26:40Z");
  EXPECT_EQ(iso_utc_from_ms(1763800000123), "2025-11-22T08:26:40.123Z");
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T08:26:40Z"), 1763800000000);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T08:26:40.5Z"), 1763800000500);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T10:26:40+02:00"), 1763800000000);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22 08:26:40"), std::nullopt);
  EXPECT_EQ(ms_from_iso_utc("2025-13-22T08:26:40Z"), std::nullopt);
  EXPECT_EQ(ms_from_iso_utc("2025-11-22T08:26:40Zjunk"), std::nullopt);
}

}  // namespace
}  // namespace fleetmcp::device
