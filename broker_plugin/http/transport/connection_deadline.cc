// HttpConnection's timeouts: the header timeout (a request head within it of its first byte, a new
// connection's handshake and first head within it of its start), the read timeout (waiting for a
// request, idle keep-alive or a slow one), and the 1 s bounds on the TLS close and on a lingering
// close, without a timer per request.
//
// Beast's basic_stream armed an asio timer before every read and cancelled it when the request
// was in: per request a timer-queue insert and removal and two timerfd_settime system calls on a
// path that is otherwise ~10 system calls long (bench/profile.sh calls). Here a phase that must
// end in time only stores its deadline (a clock read from the vDSO, no system call), and one
// timer per connection looks at it when it fires:
//   - past the deadline: the connection is cut (close(): over TLS with close_notify, bounded);
//   - a later deadline (requests kept coming): it sleeps again until that one;
//   - nothing timed (a request is being handled, a stream is open): it stops until the next
//     phase that is timed arms it again.
// A busy keep-alive connection so wakes its timer about once per read timeout instead of twice
// per request. A deadline earlier than the timer's wake-up (the TLS close's 1 s, the header
// timeout of a head that did not come in one read) moves the timer; a head that arrives whole in
// its first read, as nearly every request does, moves nothing.
// The timer never cuts early: it acts only on the deadline stored now, whatever it was armed for.
#include <boost/asio/error.hpp>

#include "broker_plugin/http/transport/http_connection.h"

namespace fleetmcp::http {

void HttpConnection::expire_at(Clock::time_point deadline) {
  deadline_ = deadline;
  if (deadline_ < timer_at_) wait_for_deadline();
}

void HttpConnection::wait_for_deadline() {
  timer_at_ = deadline_;
  deadline_timer_.expires_at(timer_at_);  // a wait still pending ends with operation_aborted
  deadline_timer_.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    const auto self = weak.lock();
    if (self && ec != boost::asio::error::operation_aborted) self->on_deadline_timer();
  });
}

void HttpConnection::on_deadline_timer() {
  timer_at_ = Clock::time_point::max();
  if (deadline_ == Clock::time_point::max()) return;  // nothing timed now
  if (Clock::now() < deadline_) return wait_for_deadline();
  expire_never();
  if (!closed_) return close();  // no request (or handshake) in time
  close_socket();                // the TLS close or the lingering close took too long
}

}  // namespace fleetmcp::http
