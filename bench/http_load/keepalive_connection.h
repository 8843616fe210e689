// One HTTP/1.1 keep-alive connection of the load generator (Boost.Beast): one request at a time,
// as an MCP client or an RFC-0009 client without pipelining would send them. It (re)connects
// when needed: at the first request, and after the server closed it or an error.
//
// Everything runs on the io_context's thread; `done` is called there with the error (transport
// failure) or the reply.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <functional>
#include <memory>

namespace fleetmcp::bench {

namespace bhttp = boost::beast::http;
using HttpRequestMessage = bhttp::request<bhttp::string_body>;
using HttpReplyMessage = bhttp::response<bhttp::string_body>;

class KeepAliveConnection : public std::enable_shared_from_this<KeepAliveConnection> {
 public:
  using Done = std::function<void(const boost::system::error_code& error, HttpReplyMessage& reply)>;

  KeepAliveConnection(boost::asio::io_context& io, boost::asio::ip::tcp::endpoint server);

  // Sends `request` (connecting first if needed) and calls `done` once with its outcome.
  // Only one request may be outstanding.
  void send(std::shared_ptr<const HttpRequestMessage> request, Done done);
  bool busy() const { return busy_; }
  // How many TCP connections this object has opened so far (1 when keep-alive held throughout).
  int connects() const { return connects_; }

 private:
  void write();
  void finish(const boost::system::error_code& error);

  boost::asio::ip::tcp::socket socket_;
  boost::asio::ip::tcp::endpoint server_;
  boost::beast::flat_buffer buffer_;
  std::shared_ptr<const HttpRequestMessage> request_;
  HttpReplyMessage reply_;
  Done done_;
  bool busy_ = false;
  int connects_ = 0;
};

}  // namespace fleetmcp::bench
