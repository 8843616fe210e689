// fuzz_http: the bytes a client sends on one connection to the front (request heads and bodies,
// pipelined or cut short), read by the real HttpConnection (server/http_connection.h: Beast's parser, the
// obs-fold and Host checks, the body screen and limit, keep-alive) over a socket pair, each
// request it reads handled by the real FrontHandler of front_harness.h. In the input, "$TOKEN"
// stands for a valid bearer token of that front (tokens are signed by a key made at start) and
// "$SESSION" for the id of a live MCP session, so seeds reach what lies behind them.
//
// The client sends everything, then half-closes. Properties: what comes back is HTTP responses,
// and the connection closes once its client is done and its requests are answered (a call still
// waiting for the fleet gets past its deadline on the fake clock first).
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>

#include "broker_plugin/http/front/http_front.h"
#include "broker_plugin/http/server/http_connection.h"
#include "fuzz/front_harness.h"
#include "fuzz/fuzz_target.h"

using namespace fleetmcp;

namespace {


std::shared_ptr<const http::ConnectionSettings> settings_of(http::FrontHandler& front) {
  auto s = std::make_shared<http::ConnectionSettings>();
  s->handler = [&front](std::shared_ptr<http::Exchange> ex) { front.handle(ex); };
  s->on_status = [&front](int status) { front.metrics().count_http(status); };
  s->screen = [&front](http::HttpRequest& head) { return front.screen(head); };
  s->authenticate = [&front](std::optional<std::string_view> authorization) { return front.authenticate(authorization); };
  s->hosts = std::make_shared<http::HostPolicy>(std::vector<std::string>{"fleet.example"});
  s->max_body_bytes = 32 * 1024;  // small enough that an input can pass it (and the 16 KiB screen)
  return s;
}

void substitute(std::string& bytes, std::string_view placeholder, const std::string& value) {
  for (size_t at = bytes.find(placeholder); at != std::string::npos; at = bytes.find(placeholder, at + value.size())) {
    bytes.replace(at, placeholder.size(), value);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto& harness = fuzz::FrontHarness::get();
  auto& f = harness.fixture();
  static const auto settings = settings_of(*f.front);
  std::string request(fuzz::as_text(data, size));
  substitute(request, "$TOKEN", harness.token());
  if (request.find("$SESSION") != std::string::npos) substitute(request, "$SESSION", harness.session("2025-11-25"));

  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
  const int client = fds[1];
  auto io = std::make_shared<http::FrontIoContext>(1);
  http::HttpConnection::Socket socket(io->get_executor());
  socket.assign(boost::asio::ip::tcp::v4(), fds[0]);  // a stream socket is all the connection asks of it
  auto connection = std::make_shared<http::HttpConnection>(std::move(socket), io, settings);
  connection->start();

  size_t sent = 0;
  bool half_closed = false;
  std::string answers;
  for (int stalls = 0; stalls < 2;) {
    size_t progress = 0;
    if (sent < request.size()) {
      const ssize_t n = ::send(client, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n > 0) sent += static_cast<size_t>(n), progress += static_cast<size_t>(n);
    }
    if (sent == request.size() && !std::exchange(half_closed, true)) ::shutdown(client, SHUT_WR);
    char buffer[16 * 1024];
    for (ssize_t n; (n = ::recv(client, buffer, sizeof buffer, 0)) > 0;) {
      answers.append(buffer, static_cast<size_t>(n));
      progress += static_cast<size_t>(n);
    }
    progress += io->poll() + f.scheduler->run();
    if (progress > 0) {
      stalls = 0;
    } else if (connection->is_open()) {
      f.advance(std::chrono::milliseconds(120'000));  // a call waits for the fleet: its deadline passes
      ++stalls;
    } else {
      break;
    }
  }
  const bool still_open = connection->is_open();
  io->drop_pending();  // handlers still queued hold the connection, which holds the io_context
  connection.reset();
  io.reset();
  ::close(client);
  harness.end_input();

  if (still_open) fuzz::property_failed("a connection stayed open after its client was done and answered");
  if (!answers.empty() && !answers.starts_with("HTTP/1.1 ")) fuzz::property_failed("the connection answered with something other than HTTP");
  return 0;
}
