// The plain parts of manage.server's self-update (device_client/update/): the request and state
// files (in the layout the packaged fleetmcp-update script writes), the status transitions the
// node sees, the refusals, and the package version. The unit is a fake whose start plays the
// script's part synchronously, so nothing here waits on a clock.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "common/base/error.h"
#include "common/base/file_text.h"
#include "common/base/json.h"
#include "device_client/backends/service_control.h"
#include "device_client/handlers/server_handler.h"
#include "device_client/update/package_version.h"
#include "device_client/update/self_update.h"
#include "device_client/update/update_files.h"
#include "tests/support/device_client/fake_unit.h"

namespace fleetmcp::device {
namespace {

using fleetmcp::device::testing::FakeUnit;

namespace fs = std::filesystem;

class SelfUpdateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("fleetmcp-self-update-" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "state");
    fs::create_directories(root_ / "outcome");
    fs::create_directories(root_ / "channels");
    std::ofstream(root_ / "channels/stable.sources") << "Types: deb\nURIs: file:/srv/repo\nSuites: ./\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  std::string state_dir() const { return (root_ / "state").string(); }     // the node's
  std::string outcome_dir() const { return (root_ / "outcome").string(); }  // root's

  std::unique_ptr<SelfUpdate> make(std::function<void()> script) {
    SelfUpdateSettings s{state_dir(), outcome_dir(), (root_ / "channels").string(), 0};
    return std::make_unique<SelfUpdate>(std::make_unique<FakeUnit>(std::move(script), &active_), s);
  }

  // What the script writes in its own directory (its `record` function's printf, byte for byte),
  // with the request_id of the node's request.
  void script_writes(const std::string& status, const std::string& finished, const std::string& message,
                     const std::string& reason, const std::string& new_version) {
    const auto request = read_update_state(state_dir(), kUpdateRequestFile);
    const std::string id = request && *request ? (*request)->request_id : "";
    std::ofstream(root_ / "outcome/update-state")
        << "status=" << status << "\nstarted_at_ms=1763800000000\nfinished_at_ms=" << finished
        << "\nmessage=" << message << "\nreason=" << reason << "\nold_version=0.1.0\nnew_version=" << new_version
        << "\nrequest_id=" << id << "\n";
  }

  fs::path root_;
  bool active_ = false;
};

TEST_F(SelfUpdateTest, StateFileRoundTripsAndReadsTheScriptsLayout) {
  UpdateState s{"failed", 1763800000000, 1763800004000, "apt-get install failed = exit 100 #1", "", "0.1.0", "0.1.0"};
  ASSERT_TRUE(replace_file(outcome_dir(), kUpdateStateFile, format_update_state(s)));
  const auto back = read_update_state(outcome_dir(), kUpdateStateFile);
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->status, "failed");
  EXPECT_EQ((*back)->finished_at_ms, 1763800004000);
  EXPECT_EQ((*back)->message, "apt-get install failed = exit 100 #1");  // '=' and " #" in a value survive

  script_writes("running", "", "installing fleetmcp-device 0.1.1 from channel beta", "", "0.1.1");
  const auto running = read_update_state(outcome_dir(), kUpdateStateFile);
  ASSERT_TRUE(running && *running);
  EXPECT_EQ((*running)->status, "running");
  EXPECT_EQ((*running)->finished_at_ms, 0);
  EXPECT_EQ((*running)->new_version, "0.1.1");
}

TEST_F(SelfUpdateTest, NoStateFileIsNoUpdateAndADamagedOneIsAnError) {
  EXPECT_FALSE(*read_update_state(outcome_dir(), kUpdateStateFile));
  script_writes("done", "", "", "", "");
  const auto bad = read_update_state(outcome_dir(), kUpdateStateFile);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("status 'done'"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(parse_update_state("status=succeeded\nstarted_at_ms=soon\n", "f"));
  EXPECT_EQ(format_update_request({"beta", "0.1.1"}), "channel=beta\ntarget_version=0.1.1\n");
  const auto long_version = parse_update_state("status=running\nnew_version=" + std::string(65, '1') + "\n", "f");
  ASSERT_TRUE(long_version);
  EXPECT_EQ(long_version->new_version, "");  // over the schemas' 64 characters: unknown
}

TEST_F(SelfUpdateTest, AChannelWithoutASourceIsRefusedNamingTheFile) {
  bool started = false;
  auto update = make([&] { started = true; });
  const auto refused = update->start({"beta", ""}, "0.1.0");
  ASSERT_FALSE(refused.ok()) << "accepted a channel without a source";
  EXPECT_EQ(refused.error().code, ErrorCode::kBadRequest);
  EXPECT_EQ(refused.error().message.rfind("failed_precondition", 0), 0u) << refused.error().message;
  EXPECT_NE(refused.error().suggested_fix.find((root_ / "channels/beta.sources").string()), std::string::npos);
  EXPECT_FALSE(started);
  EXPECT_FALSE(update->last().value());  // nothing recorded
}

TEST_F(SelfUpdateTest, StartWritesTheRequestAndPendingThenSeesTheScriptsRunning) {
  std::string request_seen;
  auto update = make([&] {
    request_seen = try_read_file(state_dir() + "/update-request").value_or("");
    script_writes("running", "", "installing fleetmcp-device 0.1.1 from channel stable", "", "0.1.1");
  });
  const UpdateState s = update->start({"stable", "0.1.1"}, "0.1.0").value();
  // The request, then its pending state (before the unit starts); nothing in root's directory.
  EXPECT_EQ(request_seen.rfind("channel=stable\ntarget_version=0.1.1\nstatus=pending\n", 0), 0u) << request_seen;
  EXPECT_NE(request_seen.find("old_version=0.1.0\n"), std::string::npos);
  EXPECT_NE(request_seen.find("request_id=" + s.request_id + "\n"), std::string::npos) << request_seen;
  EXPECT_FALSE(fs::exists(root_ / "state/update-state"));  // the node writes no state root would write
  EXPECT_EQ(s.status, "running");
  EXPECT_EQ(s.new_version, "0.1.1");
  EXPECT_EQ(s.request_id.size(), 26u);
}

// Root's state of an earlier request is not this request's outcome: the request stays pending
// until root's state names it; an older node's request (no pending fields) is no record.
TEST_F(SelfUpdateTest, RootsStateOfAnotherRequestLeavesThisOnePending) {
  std::ofstream(root_ / "outcome/update-state") << "status=succeeded\nrequest_id=01jd3x4m5n6p7q8r9s0t1v2w3x\n";
  auto update = make(nullptr);
  EXPECT_EQ(update->last().value()->status, "succeeded");
  EXPECT_EQ(update->start({"stable", ""}, "0.1.0").value().status, "pending");
  EXPECT_EQ(update->last().value()->status, "pending");
  std::ofstream(root_ / "state/update-request") << "channel=stable\ntarget_version=\n";
  EXPECT_EQ(update->last().value()->status, "succeeded");
}

TEST_F(SelfUpdateTest, AScriptThatDoesNotAnswerInTimeLeavesPending) {
  auto update = make(nullptr);
  const UpdateState s = update->start({"stable", ""}, "0.1.0").value();
  EXPECT_EQ(s.status, "pending");
  EXPECT_GT(s.started_at_ms, 0);
  EXPECT_EQ(update->last().value()->status, "pending");
}

TEST_F(SelfUpdateTest, AVersionTheChannelLacksAnswersNotFound) {
  auto update = make([&] { script_writes("failed", "1763800001000", "channel stable has no fleetmcp-device 9.9.9", "not_found", ""); });
  const auto refused = update->start({"stable", "9.9.9"}, "0.1.0");
  ASSERT_FALSE(refused.ok()) << "no not_found";
  EXPECT_EQ(refused.error().message.rfind("not_found", 0), 0u) << refused.error().message;
  EXPECT_EQ(update->last().value()->status, "failed");  // and get reports it
}

TEST_F(SelfUpdateTest, ASecondUpdateWhileOneRunsIsRefused) {
  auto update = make([&] {
    active_ = true;
    script_writes("running", "", "installing", "", "0.1.1");
  });
  EXPECT_EQ(update->start({"stable", ""}, "0.1.0").value().status, "running");
  EXPECT_FALSE(update->start({"stable", ""}, "0.1.0").ok());
  active_ = false;  // the unit ended without a final state (killed): a new update may start
  EXPECT_EQ(update->start({"stable", ""}, "0.1.0").value().status, "running");
}

TEST_F(SelfUpdateTest, TheNextProcessReadsTheOutcome) {
  ASSERT_TRUE(make([&] { script_writes("running", "", "installing", "", "0.1.1"); })->start({"stable", "0.1.1"}, "0.1.0").ok());
  script_writes("succeeded", "1763800009000", "fleetmcp-device 0.1.0 -> 0.1.1 from channel stable", "", "0.1.1");
  NodeServices services;
  services.node_id = "01jd3x4m5n6p7q8r9s0t1v2w3x";
  ServerHandler after(services, make(nullptr), "0.1.1");  // the restarted node
  const json::Document args = json::parse_strict("{}").value();
  const json::Document d = after.run({"get", args}).value();
  EXPECT_STREQ(d["version"].GetString(), "0.1.1");
  EXPECT_STREQ(d["last_update"]["status"].GetString(), "succeeded");
  EXPECT_STREQ(d["last_update"]["started_at"].GetString(), "2025-11-22T08:26:40Z");
  EXPECT_STREQ(d["last_update"]["finished_at"].GetString(), "2025-11-22T08:26:49Z");
  EXPECT_STREQ(d["last_update"]["message"].GetString(), "fleetmcp-device 0.1.0 -> 0.1.1 from channel stable");
}

// check_for_updates (docs/protocol.md D45): get reports what each configured channel offered when
// the script's --check last read it (offer-<channel>, update-state's format), and starts nothing.
TEST_F(SelfUpdateTest, GetSaysWhatEachChannelOffersWithoutInstalling) {
  NodeServices services;
  services.node_id = "01jd3x4m5n6p7q8r9s0t1v2w3x";
  bool started = false;
  ServerHandler handler(services, make([&] { started = true; }), "0.1.0");
  const json::Document args = json::parse_strict("{}").value();
  // stable has a source and was not read yet; beta has none, so it is not listed.
  json::Document d = handler.run({"get", args}).value();
  EXPECT_EQ(json::to_string(d["update_check"]),
            R"([{"channel":"stable","latest_version":null,"update_available":null,"last_checked":null}])");
  std::ofstream(root_ / "outcome/offer-stable") << "status=succeeded\nstarted_at_ms=1763800000000\nfinished_at_ms=1763800009000\n"
                                                   "message=\nreason=\nold_version=0.1.0\nnew_version=0.2.0\nrequest_id=\n";
  d = handler.run({"get", args}).value();
  EXPECT_EQ(json::to_string(d["update_check"]),
            R"([{"channel":"stable","latest_version":"0.2.0","update_available":true,"last_checked":"2025-11-22T08:26:49Z"}])");
  std::ofstream(root_ / "channels/beta.sources") << "Types: deb\n";
  std::ofstream(root_ / "outcome/offer-beta") << "status=failed\nstarted_at_ms=1763800000000\nfinished_at_ms=1763800009000\n"
                                                 "message=apt-get update of channel beta failed\nnew_version=\n";
  d = handler.run({"get", args}).value();
  EXPECT_EQ(json::to_string(d["update_check"][1]),
            R"({"channel":"beta","latest_version":null,"update_available":null,"last_checked":"2025-11-22T08:26:49Z",)"
            R"("message":"apt-get update of channel beta failed"})");
  EXPECT_FALSE(started);  // no unit was started: checking installs nothing
  EXPECT_FALSE(fs::exists(root_ / "state/update-request"));
}

TEST_F(SelfUpdateTest, PackageVersionIsTheFileBesideTheBinary) {
  fs::create_directories(root_ / "usr/bin");
  fs::create_directories(root_ / "usr/share/fleetmcp-device");
  const std::string exe = (root_ / "usr/bin/fleetmcp-device").string();
  EXPECT_EQ(package_version(exe, "0.1.0"), "0.1.0");  // a build tree: no file
  std::ofstream(root_ / "usr/share/fleetmcp-device/version") << "0.1.1\n";
  EXPECT_EQ(package_version(exe, "0.1.0"), "0.1.1");
  std::ofstream(root_ / "usr/share/fleetmcp-device/version") << "0.1.1; rm -rf /\n";
  EXPECT_EQ(package_version(exe, "0.1.0"), "0.1.0");  // not a version: the build's
}

}  // namespace
}  // namespace fleetmcp::device
