// How many HTTP connections the front holds open at once: in total, and per client address. The
// front shares the broker process's file-descriptor limit with mosquitto, so without a cap a
// client opening connections in a loop could leave no descriptor for a device's CONNECT
// (issue 17, item 4). A connection that would pass either cap is answered 503 and closed at once
// by the server (http_server.cc). Thread-safe; admit() is a hash lookup.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace fleetmcp::http {

class ConnectionLimit : public std::enable_shared_from_this<ConnectionLimit> {
 public:
  // Holds one connection's place; gives it back when destroyed.
  class Ticket {
   public:
    Ticket(std::shared_ptr<ConnectionLimit> limit, std::string address)
        : limit_(std::move(limit)), address_(std::move(address)) {}
    ~Ticket() { limit_->release(address_); }
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

   private:
    std::shared_ptr<ConnectionLimit> limit_;
    std::string address_;
  };

  ConnectionLimit(size_t max_total, size_t max_per_address) : max_total_(max_total), max_per_address_(max_per_address) {}

  // Null when the connection would pass a cap (the caller refuses it).
  std::unique_ptr<Ticket> admit(const std::string& address);
  size_t open() const;
  size_t refused() const;  // connections refused since start

 private:
  void release(const std::string& address);

  const size_t max_total_, max_per_address_;
  mutable std::mutex mutex_;
  size_t open_ = 0, refused_ = 0;
  std::unordered_map<std::string, size_t> per_address_;
};

}  // namespace fleetmcp::http
