// One HTTP(S) GET with libcurl, for the trusted issuers' metadata and keys (issuer_keys.h). It
// blocks, so only the key fetcher's own thread calls it, never the broker's or an HTTP thread.
// No redirects are followed, bodies stop at 1 MiB, and the whole exchange at 10 s.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp::http {

// https://, or http:// to a loopback address (a local identity provider, the tests').
bool acceptable_issuer_url(std::string_view url);

// The body of a 200 answer, or kInternal saying what failed (never the body). A transfer under way
// stops within a second once `*stop` is true (the plugin is unloading).
Result<std::string> http_get(const std::string& url, const std::atomic<bool>* stop = nullptr);

}  // namespace fleetmcp::http
