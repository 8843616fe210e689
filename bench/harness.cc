#include "bench/harness.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace fleetmcp::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Operations at least this slow are timed one by one (p50/p99); faster ones run in batches of
// about kBatchNs so the clock's own cost (~20 ns) stays below 1 % of what is measured.
constexpr double kPerOpThresholdNs = 2000;
constexpr double kBatchNs = 20000;

double elapsed_ns(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::nano>(end - start).count();
}

[[noreturn]] void usage(const char* prog, int code) {
  std::fprintf(code == 0 ? stdout : stderr,
               "usage: %s [--seconds S] [--count N] [--filter TEXT] [--json]\n"
               "  --seconds S    measure each operation for S seconds (default 1)\n"
               "  --count N      run each operation exactly N times instead\n"
               "  --filter TEXT  only the measurements whose name contains TEXT (a ratio needs its baseline too)\n"
               "  --json         machine-readable output for scripts\n",
               prog);
  std::exit(code);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage(argv[0], 2);
      return argv[++i];
    };
    if (a == "--json") {
      o.json = true;
    } else if (a == "--seconds") {
      o.seconds = std::atof(value());
      if (!(o.seconds > 0)) usage(argv[0], 2);
    } else if (a == "--count") {
      const long long n = std::atoll(value());
      if (n <= 0) usage(argv[0], 2);
      o.count = static_cast<uint64_t>(n);
    } else if (a == "--filter") {
      o.filter = value();
    } else if (a == "--help" || a == "-h") {
      usage(argv[0], 0);
    } else {
      usage(argv[0], 2);
    }
  }
  return o;
}

double percentile(std::vector<double>& sorted_samples, double p) {
  if (sorted_samples.empty()) return 0;
  const size_t idx = std::min(sorted_samples.size() - 1, static_cast<size_t>(p * (sorted_samples.size() - 1) + 0.5));
  return sorted_samples[idx];
}

std::string format_rate(double ops_per_s) {
  char buf[32];
  if (ops_per_s >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f M", ops_per_s / 1e6);
  } else if (ops_per_s >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.1f k", ops_per_s / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f", ops_per_s);
  }
  return buf;
}

std::string format_ns(std::optional<double> ns) {
  if (!ns) return "-";
  char buf[32];
  if (*ns >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f ms", *ns / 1e6);
  } else if (*ns >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.2f us", *ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f ns", *ns);
  }
  return buf;
}

}  // namespace

Harness::Harness(std::string title, int argc, char** argv) : title_(std::move(title)), options_(parse_options(argc, argv)) {}

const Result* Harness::find(const std::string& name) const {
  for (const auto& r : results_) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const Result* Harness::run(const std::string& name, const std::function<void()>& op, const RunSpec& spec) {
  if (!options_.filter.empty() && name.find(options_.filter) == std::string::npos) return nullptr;

  // Warm up (caches, branch predictors, lazy initialisation) and estimate the cost of one op.
  const auto warm_start = Clock::now();
  uint64_t warm_ops = 0;
  const double warm_budget_ns = std::min(0.2, options_.seconds * 0.1) * 1e9;
  do {
    op();
    ++warm_ops;
  } while (elapsed_ns(warm_start, Clock::now()) < warm_budget_ns && warm_ops < 1000000);
  const double estimate_ns = elapsed_ns(warm_start, Clock::now()) / static_cast<double>(warm_ops);

  const bool per_op = spec.per_op_latency.value_or(estimate_ns >= kPerOpThresholdNs);
  const uint64_t batch = per_op ? 1 : std::max<uint64_t>(1, static_cast<uint64_t>(kBatchNs / std::max(estimate_ns, 0.1)));
  const uint64_t target_ops = options_.count.value_or(0);
  const double budget_ns = options_.seconds * 1e9;

  std::vector<double> samples;  // ns per op: one per op when timed one by one, else one per batch
  samples.reserve(per_op ? 1 << 16 : 1 << 12);
  uint64_t ops = 0;
  double total_ns = 0;
  while (target_ops ? ops < target_ops : total_ns < budget_ns) {
    const uint64_t n = target_ops ? std::min(batch, target_ops - ops) : batch;
    const auto t0 = Clock::now();
    for (uint64_t i = 0; i < n; ++i) op();
    const double ns = elapsed_ns(t0, Clock::now());
    total_ns += ns;
    ops += n;
    samples.push_back(ns / static_cast<double>(n));
  }
  std::sort(samples.begin(), samples.end());

  // The headline figure is the median sample: on a shared machine other load only ever adds time,
  // in bursts (preemption), which moves the mean but hardly the median. The mean is kept alongside.
  Result r;
  r.name = name;
  r.ops = ops;
  r.seconds = total_ns / 1e9;
  r.ns_per_op = percentile(samples, 0.50);
  r.ops_per_s = 1e9 / r.ns_per_op;
  r.mean_ops_per_s = static_cast<double>(ops) * 1e9 / total_ns;
  if (per_op) {
    r.p50_ns = percentile(samples, 0.50);
    r.p99_ns = percentile(samples, 0.99);
  }
  if (!spec.baseline.empty()) {
    r.baseline = spec.baseline;
    if (const Result* base = find(spec.baseline)) r.ratio = r.ops_per_s / base->ops_per_s;
  }
  results_.push_back(std::move(r));
  if (!options_.json) {
    std::fprintf(stderr, "  measured %-40s %12s ops/s\n", name.c_str(), format_rate(results_.back().ops_per_s).c_str());
  }
  return &results_.back();
}

void Harness::expect_ratio(const std::string& name, double min_ratio) { targets_.push_back({name, true, min_ratio}); }
void Harness::expect_rate(const std::string& name, double min_ops_per_s) {
  targets_.push_back({name, false, min_ops_per_s});
}

void Harness::print_table() const {
  size_t width = 4;
  for (const auto& r : results_) width = std::max(width, r.name.size());
  const int w = static_cast<int>(width);
  std::printf("\n%s  (ops/s, per op: median; p50/p99 only where ops were timed one by one)\n", title_.c_str());
  std::printf("%-*s %12s %12s %12s %12s %12s %8s  %s\n", w, "name", "ops/s", "mean ops/s", "per op", "p50", "p99",
              "ratio", "baseline");
  std::printf("%s\n", std::string(width + 13 * 5 + 9 + 12, '-').c_str());
  for (const auto& r : results_) {
    char ratio[32] = "-";
    if (r.ratio) std::snprintf(ratio, sizeof ratio, "%.3f", *r.ratio);
    std::printf("%-*s %12s %12s %12s %12s %12s %8s  %s\n", w, r.name.c_str(), format_rate(r.ops_per_s).c_str(),
                format_rate(r.mean_ops_per_s).c_str(), format_ns(r.ns_per_op).c_str(), format_ns(r.p50_ns).c_str(),
                format_ns(r.p99_ns).c_str(), ratio, r.baseline.c_str());
  }
  if (targets_.empty()) return;
  std::printf("\ntargets\n");
  for (const auto& t : targets_) {
    const Result* r = find(t.name);
    if (r == nullptr) {
      std::printf("  %-40s not measured\n", t.name.c_str());
      continue;
    }
    const bool have = !t.ratio || r->ratio.has_value();
    const double value = !have ? 0 : t.ratio ? *r->ratio : r->ops_per_s;
    const bool met = have && value >= t.min;
    if (t.ratio) {
      std::printf("  %-40s ratio %.3f vs target >= %.3f  %s\n", t.name.c_str(), value, t.min, met ? "PASS" : "MISS");
    } else {
      std::printf("  %-40s %s ops/s vs target >= %s ops/s  %s\n", t.name.c_str(), format_rate(value).c_str(),
                  format_rate(t.min).c_str(), met ? "PASS" : "MISS");
    }
  }
}

void Harness::print_json() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("bench");
  w.String(title_.c_str());
  w.Key("results");
  w.StartArray();
  for (const auto& r : results_) {
    w.StartObject();
    w.Key("name");
    w.String(r.name.c_str());
    w.Key("ops");
    w.Uint64(r.ops);
    w.Key("seconds");
    w.Double(r.seconds);
    w.Key("ops_per_s");
    w.Double(r.ops_per_s);
    w.Key("ns_per_op");
    w.Double(r.ns_per_op);
    w.Key("mean_ops_per_s");
    w.Double(r.mean_ops_per_s);
    if (r.p50_ns) {
      w.Key("p50_ns");
      w.Double(*r.p50_ns);
      w.Key("p99_ns");
      w.Double(*r.p99_ns);
    }
    if (!r.baseline.empty()) {
      w.Key("baseline");
      w.String(r.baseline.c_str());
    }
    if (r.ratio) {
      w.Key("ratio");
      w.Double(*r.ratio);
    }
    w.EndObject();
  }
  w.EndArray();
  w.Key("targets");
  w.StartArray();
  for (const auto& t : targets_) {
    const Result* r = find(t.name);
    const bool have = r != nullptr && (!t.ratio || r->ratio.has_value());
    const double value = !have ? 0 : t.ratio ? *r->ratio : r->ops_per_s;
    w.StartObject();
    w.Key("name");
    w.String(t.name.c_str());
    w.Key("metric");
    w.String(t.ratio ? "ratio" : "ops_per_s");
    w.Key("min");
    w.Double(t.min);
    w.Key("value");
    if (have) {
      w.Double(value);
    } else {
      w.Null();
    }
    w.Key("met");
    w.Bool(have && value >= t.min);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  std::printf("%s\n", buf.GetString());
}

int Harness::finish() {
  if (options_.json) {
    print_json();
  } else {
    print_table();
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace fleetmcp::bench
