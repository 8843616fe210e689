// Bounds a result that grows item by item (journal entries, processes) by its size as JSON, so the
// cmd_ack that carries it stays under kMaxResultBytes (common/protocol/cmd_ack.h, issue 33 item 3):
// a handler asks `take` before adding each item and stops at the first that does not fit, saying
// there is more (has_more) so the caller asks for the next page. The command dispatcher refuses
// whatever still comes out too large; this keeps an ordinary page from getting there.
#pragma once

#include <cstddef>

#include "common/base/json.h"
#include "common/protocol/cmd_ack.h"

namespace fleetmcp::device {

class ResultBudget {
 public:
  // Room for the items: the result's own fields (counts, flags) take well under 1 KiB.
  static constexpr size_t kItemBytes = kMaxResultBytes - 1024;

  explicit ResultBudget(size_t bytes = kItemBytes) : left_(bytes) {}

  // True, and the item's bytes (and its comma) spent, when it fits; false leaves the budget as is.
  bool take(const json::Value& item) {
    const size_t bytes = json::to_string(item).size() + 1;
    if (bytes > left_) return false;
    left_ -= bytes;
    return true;
  }

 private:
  size_t left_;
};

}  // namespace fleetmcp::device
