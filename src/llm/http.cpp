#include "llm/http.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ctime>
#include <mutex>

namespace ksearch::llm::detail {

namespace {

void global_init_once() {
  static std::once_flag flag;
  std::call_once(flag, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct BodySink {
  std::string* body;
  size_t limit;
  bool overflowed = false;
};

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  if (sink->body->size() + size * n > sink->limit) {
    sink->overflowed = true;
    return 0;  // makes curl abort the transfer
  }
  sink->body->append(data, size * n);
  return size * n;
}

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();  // a new response (after 100 Continue or a redirect)
    return size * n;
  }
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    (*headers)[name] = trim(line.substr(colon + 1));
  }
  return size * n;
}

struct CurlHandle {
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  ~CurlHandle() {
    curl_slist_free_all(headers);
    if (h) curl_easy_cleanup(h);
  }
};

}  // namespace

HttpResponse http_post(const HttpRequest& req) {
  global_init_once();
  CurlHandle c;
  if (!c.h) throw TransportFailure{false, false, "curl_easy_init failed"};
  for (const auto& h : req.headers) c.headers = curl_slist_append(c.headers, h.c_str());
  // libcurl would otherwise wait for "100 Continue" on large bodies.
  c.headers = curl_slist_append(c.headers, "Expect:");

  HttpResponse resp;
  BodySink sink{&resp.body, req.max_response_bytes};
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c.h, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
  curl_easy_setopt(c.h, CURLOPT_POST, 1L);
  curl_easy_setopt(c.h, CURLOPT_POSTFIELDS, req.body.data());
  curl_easy_setopt(c.h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(c.h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c.h, CURLOPT_HEADERDATA, &resp.headers);
  curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(c.h, CURLOPT_NOSIGNAL, 1L);  // required for multi-threaded use
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout_s * 1000));
  curl_easy_setopt(c.h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout_s * 1000));
  curl_easy_setopt(c.h, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(c.h, CURLOPT_PROTOCOLS_STR, "http,https");

  CURLcode rc = curl_easy_perform(c.h);
  if (sink.overflowed)
    throw TransportFailure{false, true, fmt::format("response body larger than {} MiB", req.max_response_bytes >> 20)};
  if (rc != CURLE_OK) {
    std::string msg = errbuf[0] ? errbuf : curl_easy_strerror(rc);
    throw TransportFailure{rc == CURLE_OPERATION_TIMEDOUT, false, msg};
  }
  curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &resp.status);
  return resp;
}

std::optional<double> parse_retry_after(const std::string& raw) {
  std::string v = trim(raw);
  if (v.empty()) return std::nullopt;
  double secs = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), secs);
  if (ec == std::errc() && ptr == v.data() + v.size()) return std::max(0.0, secs);
  time_t when = curl_getdate(v.c_str(), nullptr);
  if (when == -1) return std::nullopt;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

}  // namespace ksearch::llm::detail
