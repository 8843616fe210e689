// Who may hold the HTTP front's connections, and how many. The front shares the broker process's
// file-descriptor limit with mosquitto, so without caps a client opening connections in a loop
// could leave no descriptor for a device's CONNECT (issue 17, item 4); and one client, address
// range or tenant must not be able to take every connection from the others (issue 24, items 5
// and 7: 5,000 trickling connections, or 512 streams of one token, kept every other agent out).
//
//   - Caps at accept: per address, per address prefix (IPv4 /24, IPv6 /64: one host or one
//     subnet of an attacker), and in total. A connection past the address or prefix cap is
//     refused (503, http_server.cc).
//   - At the total cap, the connection that has waited longest for a request without having
//     shown a valid token (an idle kept-alive one, or one still sending its request head) is
//     closed to make room; only when there is none is the new one refused. Connections whose
//     requests carry a valid token are never closed for another.
//   - Unauthenticated connections may hold at most `unauthenticated` places; the rest are a
//     reserve. A connection admitted while that share is full is on probation: its first request
//     must carry a valid token, or it is refused (503) and closed. Connections are admitted before
//     any byte is read, so the reserve is applied to the request's head (http_connection.cc).
//   - A connection is counted to the tenant of the first valid token it carries; a tenant holds at
//     most `per_tenant` connections (streams included: each is a connection); past that its
//     request is refused (429) and the connection closed.
//
// Thread-safe. admit() is a few hash lookups per connection; once a connection has shown a valid
// token, its requests cost the limit nothing (the connection remembers it, Ticket::authenticated).
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fleetmcp::http {

struct ConnectionCaps {
  size_t total = 512;
  size_t per_address = 64;
  size_t per_prefix = 128;
  size_t unauthenticated = 384;  // total minus the reserve for authenticated callers
  size_t per_tenant = 128;
};

// The range an address belongs to for ConnectionCaps::per_prefix: "203.0.113.0/24",
// "2001:db8:0:1::/64"; an IPv4-mapped IPv6 address counts as its IPv4 address. Anything that is
// not an IP address is its own range.
std::string address_prefix(std::string_view address);

class ConnectionLimit : public std::enable_shared_from_this<ConnectionLimit> {
 public:
  // One connection's place. Called on the connection's own thread; gives the place back when
  // destroyed, unless the limit already took it back (evicted it).
  class Ticket {
   public:
    enum class Verdict { kAdmitted, kOnProbationWithoutToken, kTenantFull };

    Ticket(std::shared_ptr<ConnectionLimit> limit, std::string address, std::string prefix, bool probation);
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

    // What closes the connection when the limit needs its place (called once, from the thread
    // of a later admit()). Set it right after admit(), before the next admit() (the server's one
    // acceptor does both): a ticket evicted without it would leave its connection open.
    void on_evict(std::function<void()> close);
    // A request head arrived: `tenant` is the tenant of its valid bearer token, or empty when it
    // has none. The first valid token counts the connection to its tenant and takes it off the
    // unauthenticated share. Not kAdmitted: refuse the request and close the connection.
    Verdict request(std::string_view tenant);
    // The connection has shown a valid token: its further requests need not call request() or
    // waiting(). Read without a lock (only the connection's thread changes it).
    bool authenticated() const { return authenticated_; }
    // An unauthenticated connection waits for a request (true: it may be evicted) or is being
    // answered (false).
    void waiting(bool waiting);

   private:
    friend class ConnectionLimit;
    std::shared_ptr<ConnectionLimit> limit_;
    const std::string address_, prefix_;
    std::string tenant_;
    bool probation_;
    bool authenticated_ = false;
    bool evicted_ = false;  // the limit gave the place to another connection
    bool listed_ = false;   // in ConnectionLimit::waiting_
    std::list<Ticket*>::iterator in_waiting_;
    std::function<void()> close_;
  };

  explicit ConnectionLimit(ConnectionCaps caps) : caps_(caps) {}

  // Null when the connection would pass a cap and no waiting unauthenticated connection can make
  // room (the caller refuses it).
  std::unique_ptr<Ticket> admit(std::string_view address);
  size_t open() const;
  size_t refused() const;  // connections refused since start
  size_t evicted() const;  // unauthenticated connections closed to make room
  const ConnectionCaps& caps() const { return caps_; }

 private:
  // Under mutex_: gives a place back (a closed connection's, or an evicted one's).
  void release_locked(Ticket& t);
  void list_locked(Ticket& t);
  void unlist_locked(Ticket& t);

  const ConnectionCaps caps_;
  mutable std::mutex mutex_;
  size_t open_ = 0, unauthenticated_ = 0, refused_ = 0, evicted_ = 0;
  std::unordered_map<std::string, size_t> per_address_, per_prefix_, per_tenant_;
  // Unauthenticated connections waiting for a request, the longest-waiting first.
  std::list<Ticket*> waiting_;
};

}  // namespace fleetmcp::http
