#include "broker_plugin/http/auth/http_get.h"

#include <curl/curl.h>

#include <memory>

#include "common/base/error.h"
#include <mutex>

namespace fleetmcp::http {
namespace {

constexpr size_t kMaxBody = 1024 * 1024;

struct Body {
  std::string text;
  bool too_large = false;
};

size_t append(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<Body*>(user);
  if (body->text.size() + size * count > kMaxBody) {
    body->too_large = true;
    return 0;  // libcurl stops the transfer
  }
  body->text.append(data, size * count);
  return size * count;
}

ErrorEnvelope unavailable(const std::string& url, std::string_view what) {
  return ErrorEnvelope(ErrorCode::kInternal, "GET " + ascii_clamp(url, 200) + ": " + std::string(what),
                       "check that the authorization server is up and reachable from the broker");
}

// libcurl calls it about once a second during a transfer; non-zero aborts it.
int progress(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return stop != nullptr && static_cast<const std::atomic<bool>*>(stop)->load() ? 1 : 0;
}

}  // namespace

bool acceptable_issuer_url(std::string_view url) {
  return url.starts_with("https://") || url.starts_with("http://127.0.0.1") || url.starts_with("http://localhost") ||
         url.starts_with("http://[::1]");
}

Result<std::string> http_get(const std::string& url, const std::atomic<bool>* stop) {
  static std::once_flag global;
  std::call_once(global, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (!acceptable_issuer_url(url)) return unavailable(url, "only https (or http on loopback) is fetched");
  std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
  if (!curl) return unavailable(url, "libcurl could not start");
  Body body;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);  // a plugin thread: no SIGALRM for DNS timeouts
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT, 5L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT, 10L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(curl.get(), CURLOPT_USERAGENT, "fleetmcp");
  curl_easy_setopt(curl.get(), CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFOFUNCTION, progress);
  curl_easy_setopt(curl.get(), CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(stop));
  const CURLcode done = curl_easy_perform(curl.get());
  if (body.too_large) return unavailable(url, "the answer is larger than 1 MiB");
  if (done != CURLE_OK) return unavailable(url, curl_easy_strerror(done));
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return unavailable(url, "HTTP status " + std::to_string(status));
  return std::move(body.text);
}

}  // namespace fleetmcp::http
