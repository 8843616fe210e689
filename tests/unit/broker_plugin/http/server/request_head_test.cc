// A request's head (request_head.h) from bytes, without a socket: what a whole head, a part of
// one, and each refusal (431, 413, 400 for bytes, obs-fold and Host, 421) come to, and the
// deadlines that bound a slow client.
#include <gtest/gtest.h>

#include <boost/asio/buffer.hpp>

#include <string>
#include <string_view>

#include "broker_plugin/http/server/request_head.h"

namespace fleetmcp::http {
namespace {

using namespace std::chrono_literals;

struct RequestHeadTest : ::testing::Test {
  RequestHeadTest() {
    settings.max_header_bytes = 1024;
    settings.max_body_bytes = 64 * 1024;
    settings.read_timeout = 60000ms;
    settings.header_timeout = 5000ms;
    settings.hosts = std::make_shared<HostPolicy>(std::vector<std::string>{"fleet.example"});
  }
  // Starts a request and parses `bytes` as they would arrive in one read.
  Result<RequestHead::Progress, HttpReply> parse(std::string_view bytes) {
    (void)head.next_request();
    buffer.clear();
    const auto room = buffer.prepare(bytes.size());
    buffer.commit(boost::asio::buffer_copy(room, boost::asio::buffer(bytes.data(), bytes.size())));
    return head.parse(buffer);
  }
  int refused_with(std::string_view bytes) {
    auto progress = parse(bytes);
    return progress ? 0 : progress.error().status;
  }

  ConnectionSettings settings;
  RequestHead head{settings};
  boost::beast::flat_buffer buffer;
};

TEST_F(RequestHeadTest, AWholeHeadPassesWithItsAuthorizationAndBody) {
  auto progress = parse("POST /mcp HTTP/1.1\r\nHost: fleet.example\r\nAuthorization: Bearer abc\r\n"
                        "Content-Length: 2\r\n\r\n{}");
  ASSERT_TRUE(progress);
  EXPECT_EQ(*progress, RequestHead::Progress::kWhole);
  EXPECT_EQ(head.authorization().value_or(""), "Bearer abc");
  EXPECT_FALSE(head.large_body());
  EXPECT_TRUE(head.keep_alive());
  EXPECT_EQ(buffer.size(), 2u);  // the body is left for the body read
  const HttpRequest request = head.request(false);
  EXPECT_EQ(request.method, "POST");
  EXPECT_EQ(request.target, "/mcp");
  EXPECT_EQ(request.header("authorization").value_or(""), "Bearer abc");
}

TEST_F(RequestHeadTest, ABodyOver16KiBOrChunkedIsLarge) {
  ASSERT_TRUE(parse("POST /mcp HTTP/1.1\r\nHost: fleet.example\r\nContent-Length: 20000\r\n\r\n"));
  EXPECT_TRUE(head.large_body());
  ASSERT_TRUE(parse("POST /mcp HTTP/1.1\r\nHost: fleet.example\r\nTransfer-Encoding: chunked\r\n\r\n"));
  EXPECT_TRUE(head.large_body());
}

TEST_F(RequestHeadTest, EachLimitAndMalformedHeadIsRefusedWithItsStatus) {
  EXPECT_EQ(refused_with("GET / HTTP/1.1\r\nHost: fleet.example\r\nX: " + std::string(2000, 'a') + "\r\n\r\n"), 431);
  EXPECT_EQ(refused_with("POST / HTTP/1.1\r\nHost: fleet.example\r\nContent-Length: 100000\r\n\r\n"), 413);
  EXPECT_EQ(refused_with("NOT HTTP AT ALL\r\n\r\n"), 400);
  EXPECT_EQ(refused_with("GET / HTTP/1.1\r\nHost: fleet.example\r\nX: a\r\n b\r\n\r\n"), 400);  // obs-fold
  EXPECT_EQ(refused_with("GET / HTTP/1.1\r\nHost: fleet.example\r\nHost: fleet.example\r\n\r\n"), 400);
  EXPECT_EQ(refused_with("GET / HTTP/1.1\r\n\r\n"), 400);  // no Host in HTTP/1.1
  EXPECT_EQ(refused_with("GET / HTTP/1.1\r\nHost: evil.example\r\n\r\n"), 421);
  EXPECT_EQ(refused_with("GET / HTTP/1.0\r\n\r\n"), 0);  // HTTP/1.0 needs no Host
}

TEST_F(RequestHeadTest, PartOfAHeadIsDueWithinTheHeaderTimeoutOnce) {
  auto progress = parse("GET / HTTP/1.1\r\nHost: fle");
  ASSERT_TRUE(progress);
  EXPECT_EQ(*progress, RequestHead::Progress::kNeedMore);
  const auto before = RequestHead::Clock::now();
  const auto due = head.partial();
  ASSERT_TRUE(due);
  EXPECT_GE(*due, before + settings.header_timeout);
  EXPECT_LE(*due, RequestHead::Clock::now() + settings.header_timeout);
  EXPECT_FALSE(head.partial());  // the rest of the same head moves nothing
}

TEST_F(RequestHeadTest, TheFirstRequestIsDueByTheConnectionsStartLaterOnesByTheReadTimeout) {
  const auto start = RequestHead::Clock::now();
  EXPECT_EQ(head.connection_started(start), start + settings.header_timeout);
  EXPECT_FALSE(head.next_request());  // the connection's start set it
  EXPECT_EQ(head.body_due(), start + settings.read_timeout);
  const auto before = RequestHead::Clock::now();
  const auto due = head.next_request();
  ASSERT_TRUE(due);
  EXPECT_GE(*due, before + settings.read_timeout);
  EXPECT_EQ(head.body_due(), *due);
}

}  // namespace
}  // namespace fleetmcp::http
