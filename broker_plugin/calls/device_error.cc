#include "broker_plugin/calls/device_error.h"

namespace fleetmcp::plugin {

ErrorEnvelope templated_device_error(const CmdAck& ack) {
  if (ack.not_run) {
    return ErrorEnvelope(ack.code, "the device received the command after its deadline and did not run it",
                         "nothing was changed; retry the call if it is still wanted");
  }
  ErrorEnvelope envelope(ack.code, "the device refused the call with " + std::string(error_code_name(ack.code)),
                         ack.code == ErrorCode::kRateLimited ? "retry after retry_after_ms"
                                                             : "check the arguments and the node's state, then retry");
  envelope.retry_after_ms = ack.retry_after_ms;
  return envelope;
}

}  // namespace fleetmcp::plugin
