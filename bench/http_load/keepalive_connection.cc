#include "bench/http_load/keepalive_connection.h"

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

namespace fleetmcp::bench {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

KeepAliveConnection::KeepAliveConnection(asio::io_context& io, tcp::endpoint server)
    : socket_(io), server_(std::move(server)) {}

void KeepAliveConnection::send(std::shared_ptr<const HttpRequestMessage> request, Done done) {
  busy_ = true;
  request_ = std::move(request);
  done_ = std::move(done);
  if (socket_.is_open()) return write();
  ++connects_;
  socket_.async_connect(server_, [self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec) return self->finish(ec);
    // Request/response latency: no Nagle delay on small writes (docs/platform-notes.md §M3).
    self->socket_.set_option(tcp::no_delay(true));
    self->write();
  });
}

void KeepAliveConnection::write() {
  bhttp::async_write(socket_, *request_, [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
    if (ec) return self->finish(ec);
    self->reply_ = {};
    bhttp::async_read(self->socket_, self->buffer_, self->reply_,
                      [self](const boost::system::error_code& read_error, size_t) { self->finish(read_error); });
  });
}

void KeepAliveConnection::finish(const boost::system::error_code& error) {
  if (error || !reply_.keep_alive()) {
    boost::system::error_code ignored;
    socket_.close(ignored);
    buffer_.clear();
  }
  busy_ = false;
  request_.reset();
  auto done = std::move(done_);
  done(error, reply_);
}

}  // namespace fleetmcp::bench
