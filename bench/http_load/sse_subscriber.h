// One metrics stream held open by the load generator, on its own connection: an RFC-0009
// subscribe (`event: metric` frames) or an MCP tools/call of the subscribe tool
// (`notifications/progress` messages). Every sample is stamped on arrival (steady clock) and with
// its age (wall clock now minus the sample's ts_ms, i.e. device to client), for the jitter and
// latency figures. Beast parses the HTTP response; the body is cut into SSE events at blank lines.
//
// Everything runs on the io_context's thread.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/http_load/tool_call_api.h"

namespace fleetmcp::bench {

struct StreamSample {
  double arrival_ms = 0;  // steady clock, milliseconds
  double age_ms = 0;      // wall clock at arrival minus the sample's ts_ms
};

class SseSubscriber : public std::enable_shared_from_this<SseSubscriber> {
 public:
  // Called once: "" when the stream answered 200 text/event-stream, else the failure kind.
  using Opened = std::function<void(const std::string& failure)>;

  SseSubscriber(boost::asio::io_context& io, boost::asio::ip::tcp::endpoint server, CallApi api,
                std::shared_ptr<const HttpRequestMessage> request);

  void open(Opened opened);
  void close();  // the client goes away (RFC-0009: close 1000 on the server's side)

  const std::vector<StreamSample>& samples() const { return samples_; }
  // Why the stream ended before close(): "close 4503", "result", "eof"...; empty while it runs.
  const std::string& ended() const { return ended_; }

 private:
  void read_header();
  void read_body();
  void take_events();
  void on_event(std::string_view type, std::string_view data);
  void end(const std::string& why);

  boost::asio::ip::tcp::socket socket_;
  boost::asio::ip::tcp::endpoint server_;
  CallApi api_;
  std::shared_ptr<const HttpRequestMessage> request_;
  boost::beast::flat_buffer buffer_;
  std::optional<bhttp::response_parser<bhttp::string_body>> parser_;
  std::string pending_;  // body text not yet cut into events
  Opened opened_;
  std::vector<StreamSample> samples_;
  std::string ended_;
  bool closing_ = false;
};

}  // namespace fleetmcp::bench
