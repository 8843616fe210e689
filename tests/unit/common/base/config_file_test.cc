#include "common/base/config_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <fstream>

namespace fleetmcp {
namespace {

// The device.conf of docs/CONTRIBUTING.md, trailing comments included.
constexpr std::string_view kDeviceConf =
    "# fleetmcp device\n"
    "node_id = 01jd3x0000000000000000000a            # lowercase ULID\n"
    "\n"
    "   tenant=acme\r\n"
    "broker = mqtts://127.0.0.1:8883\n"
    "capability.echo = system.echo rate_limit_rps=10 max_concurrency=4 deadline_ms_default=2000\n"
    "motd = a#b  # the '#' inside a value stays\n"
    "empty =\n";

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
    return e.envelope().message;
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(ConfigFile, ParsesEntriesWithFileAndLine) {
  const auto entries = parse_config_text(kDeviceConf, "device.conf").value();
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[0].key, "node_id");
  EXPECT_EQ(entries[0].value, "01jd3x0000000000000000000a");
  EXPECT_EQ(entries[0].line, 2);
  EXPECT_EQ(entries[0].file, "device.conf");
  EXPECT_EQ(entries[1].key, "tenant");
  EXPECT_EQ(entries[1].value, "acme");
  EXPECT_EQ(entries[1].line, 4);
  EXPECT_EQ(entries[2].value, "mqtts://127.0.0.1:8883");
  EXPECT_EQ(entries[3].key, "capability.echo");
  EXPECT_EQ(entries[3].value, "system.echo rate_limit_rps=10 max_concurrency=4 deadline_ms_default=2000");
  EXPECT_EQ(entries[4].value, "a#b");
  EXPECT_EQ(entries[5].key, "empty");
  EXPECT_EQ(entries[5].value, "");
}

TEST(ConfigFile, LineWithoutEqualsNamesFileAndLine) {
  const auto words = parse_config_text("a = 1\n# c\njust words\n", "dev.conf");
  ASSERT_FALSE(words.ok());
  EXPECT_EQ(words.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(words.error().message.rfind("dev.conf:3: ", 0), 0u) << words.error().message;
  const auto no_key = parse_config_text("= 1\n", "dev.conf");
  ASSERT_FALSE(no_key.ok());
  EXPECT_EQ(no_key.error().message.rfind("dev.conf:1: ", 0), 0u) << no_key.error().message;
}

TEST(ConfigFile, TypedValuesNameFileLineAndKey) {
  const auto e = parse_config_text("x = 1\nrate = 12\nratio = 0.5\non = yes\nbad = 1e\noff = off\n", "d.conf").value();
  EXPECT_EQ(e[1].as_int(1, 50), 12);
  EXPECT_DOUBLE_EQ(e[2].as_number(0, 1), 0.5);
  EXPECT_TRUE(e[3].as_bool());
  EXPECT_FALSE(e[5].as_bool());
  const auto range = message_of([&] { e[1].as_int(1, 10); });
  EXPECT_EQ(range.rfind("d.conf:2: rate: ", 0), 0u) << range;
  EXPECT_EQ(range, "d.conf:2: rate: '12' is not an integer from 1 to 10");
  EXPECT_EQ(message_of([&] { e[4].as_int(0, 9); }).rfind("d.conf:5: bad: ", 0), 0u);
  EXPECT_EQ(message_of([&] { e[4].as_number(0, 9); }).rfind("d.conf:5: bad: ", 0), 0u);
  EXPECT_EQ(message_of([&] { e[4].as_bool(); }).rfind("d.conf:5: bad: ", 0), 0u);
  EXPECT_EQ(message_of([&] { e[2].as_number(0.6, 1); }).rfind("d.conf:3: ratio: ", 0), 0u);
  for (std::string_view not_int : {"", "+1", " 1", "1.0", "0x10", "99999999999999999999"}) {
    ConfigEntry entry{"d.conf", 7, "n", std::string(not_int)};
    EXPECT_THROW(entry.as_int(INT64_MIN, INT64_MAX), Error) << not_int;
  }
  ConfigEntry fail_entry{"d.conf", 9, "key", "v"};
  EXPECT_EQ(message_of([&] { fail_entry.fail("custom reason"); }), "d.conf:9: key: custom reason");
}

TEST(ConfigFile, ReadsFilesAndNamesTheMissingOne) {
  const auto path = std::filesystem::temp_directory_path() / ("config_test_" + std::to_string(::getpid()) + ".conf");
  std::ofstream(path) << kDeviceConf;
  const auto entries = read_config_file(path.string()).value();
  ASSERT_EQ(entries.size(), 6u);
  EXPECT_EQ(entries[1].file, path.string());
  std::ofstream(path, std::ios::trunc).flush();
  EXPECT_TRUE(read_config_file(path.string())->empty()) << "an empty file is an empty config";
  std::filesystem::remove(path);
  const auto missing = read_config_file(path.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kBadRequest);
  EXPECT_NE(missing.error().message.find(path.string()), std::string::npos) << missing.error().message;
}

}  // namespace
}  // namespace fleetmcp
