// The Beast server's connections (http_connection.cc) on loopback with a real client socket: how
// an answer reaches the client. Most answers are written inside respond() and the connection
// reads the next request at once; an answer larger than the socket takes is finished by
// async_write while the client is slow to read. Either way the client gets every byte, in order,
// and the connection stays usable.
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <string>
#include <thread>
#include <vector>

#include "broker_plugin/http/front/http_front.h"
#include "broker_plugin/http/server/http_server.h"

namespace fleetmcp::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using namespace std::chrono_literals;

// A body no two offsets of which look alike over a short stretch, so a lost or repeated chunk shows.
std::string patterned(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 26) % 26);
  return s;
}

// A server whose handler answers GET /big/<n> with n patterned bytes and anything else with its
// target, on one io thread (as the front runs it).
class EchoServer {
 public:
  EchoServer() {
    auto settings = std::make_shared<ConnectionSettings>();
    settings->handler = [](std::shared_ptr<Exchange> ex) {
      const std::string target = ex->request().target;
      if (target.starts_with("/big/")) {
        return ex->respond(HttpReply{200, {{"Content-Type", "text/plain"}}, patterned(std::stoul(target.substr(5)))});
      }
      ex->respond(HttpReply{200, {{"Content-Type", "text/plain"}}, target});
    };
    server_ = std::make_unique<HttpServer>(std::vector<std::shared_ptr<asio::io_context>>{io_}, "127.0.0.1", 0,
                                           std::move(settings));
    server_->start();
    thread_ = std::thread([this] { io_->run(); });
  }
  ~EchoServer() {
    server_->stop();
    for (int i = 0; i < 200 && server_->open_connections() > 0; ++i) std::this_thread::sleep_for(10ms);
    work_.reset();
    io_->stop();
    thread_.join();
    io_->drop_pending();  // what a stopped io_context still holds would keep its connections
  }
  uint16_t port() const { return server_->port(); }

 private:
  std::shared_ptr<FrontIoContext> io_ = std::make_shared<FrontIoContext>(1);
  asio::executor_work_guard<asio::io_context::executor_type> work_ = asio::make_work_guard(*io_);
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

bhttp::request<bhttp::string_body> get(const std::string& target) {
  bhttp::request<bhttp::string_body> req{bhttp::verb::get, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  return req;
}

// One client connection; a receive buffer size, when given, is set before connecting (it bounds
// the TCP window the server may fill).
struct Client {
  explicit Client(uint16_t port, int receive_buffer = 0) {
    if (receive_buffer > 0) {
      stream.socket().open(asio::ip::tcp::v4());
      stream.socket().set_option(asio::socket_base::receive_buffer_size(receive_buffer));
    }
    stream.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  bhttp::response<bhttp::string_body> read() {
    bhttp::response<bhttp::string_body> res;
    bhttp::read(stream, buffer, res);
    return res;
  }

  asio::io_context io;
  beast::tcp_stream stream{io};
  beast::flat_buffer buffer;
};

TEST(HttpConnection, SmallAnswersComeInOrderOnOneKeptAliveConnection) {
  EchoServer server;
  Client client(server.port());
  for (int i = 0; i < 200; ++i) {
    bhttp::write(client.stream, get("/call/" + std::to_string(i)));
    const auto res = client.read();
    ASSERT_EQ(res.result_int(), 200u);
    ASSERT_EQ(res.body(), "/call/" + std::to_string(i));
    ASSERT_TRUE(res.keep_alive());
  }
}

// Pipelined requests (sent together, before any answer): the next is already in the read buffer
// when the one before is answered inside respond(), and is answered next.
TEST(HttpConnection, PipelinedRequestsAreAnsweredInOrder) {
  EchoServer server;
  Client client(server.port());
  const std::vector<std::string> targets{"/first", "/second", "/third"};
  std::string all;
  for (const auto& target : targets) all += "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  asio::write(client.stream.socket(), asio::buffer(all));
  for (const auto& target : targets) EXPECT_EQ(client.read().body(), target);
}

TEST(HttpConnection, AnAnswerLargerThanTheSocketTakesReachesASlowReaderWhole) {
  EchoServer server;
  Client client(server.port(), 4096);  // a small window: the server's writes fill up

  constexpr size_t kBig = 16 << 20;  // more than loopback's send and receive buffers hold together
  bhttp::write(client.stream, get("/big/" + std::to_string(kBig)));
  std::this_thread::sleep_for(300ms);  // the server has written what fits and waits for room
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(kBig + 1);
  bhttp::read(client.stream, client.buffer, parser);
  const auto& res = parser.get();
  ASSERT_EQ(res.result_int(), 200u);
  ASSERT_EQ(res.body().size(), kBig);
  EXPECT_TRUE(res.body() == patterned(kBig)) << "the body arrived with bytes lost, repeated or out of order";

  // The connection goes on after the long write.
  bhttp::write(client.stream, get("/after"));
  EXPECT_EQ(client.read().body(), "/after");
}

}  // namespace
}  // namespace fleetmcp::http
