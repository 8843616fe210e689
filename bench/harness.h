// The benchmark harness every bench/*_bench.cc uses: run a function for a fixed time (or a fixed
// count), report ops/s, ns/op and, for operations slow enough to time one by one, p50/p99; print
// an aligned table with each result's ratio against a baseline measured in the same run, or JSON
// (--json) for scripts.
//
//   int main(int argc, char** argv) {
//     fleetmcp::bench::Harness h("manifest_verify", argc, argv);
//     h.run("raw ed25519", [&] { ... });
//     h.run("full verify", [&] { ... }, {.baseline = "raw ed25519"});
//     h.expect_ratio("full verify", 0.5);   // a target, printed as PASS/MISS
//     return h.finish();
//   }
//
// The headline ns/op is the median of the samples (single ops, or batches of ~20 us for fast ops):
// load from other processes comes in bursts that move the mean but hardly the median. The mean
// ops/s is reported alongside. Ratios use the headline figures.
//
// Command line of every benchmark: --seconds S (per measurement, default 1), --count N (a fixed number of operations instead), --filter TEXT (only names containing TEXT;
// a ratio needs its baseline to match too), --json, --help.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fleetmcp::bench {

// Keeps the compiler from deleting a computation whose result is otherwise unused.
template <typename T>
inline void keep(T const& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

struct Options {
  double seconds = 1.0;
  std::optional<uint64_t> count;
  std::string filter;
  bool json = false;
};

struct RunSpec {
  std::string baseline;  // name of an earlier result; its ops/s is the ratio's denominator
  // Time every operation on its own so p50/p99 are per-operation latencies. Default: only when an
  // operation takes at least ~2 us (timer overhead would distort faster ones; they run in batches).
  std::optional<bool> per_op_latency;
};

struct Result {
  std::string name;
  uint64_t ops = 0;
  double seconds = 0;
  double ops_per_s = 0;       // 1e9 / ns_per_op
  double ns_per_op = 0;       // median sample (robust to other load on a shared machine)
  double mean_ops_per_s = 0;  // total ops / total time
  std::optional<double> p50_ns, p99_ns;  // set when operations were timed one by one
  std::string baseline;
  std::optional<double> ratio;  // ops_per_s / baseline's ops_per_s
};

class Harness {
 public:
  // Parses the options above; prints usage and exits on --help or a bad option.
  Harness(std::string title, int argc, char** argv);

  // Measures `op`, records and returns the result (nullptr when --filter skips it).
  const Result* run(const std::string& name, const std::function<void()>& op, const RunSpec& spec = {});

  // Records a target "ratio of `name` against its baseline >= min_ratio", reported by finish().
  void expect_ratio(const std::string& name, double min_ratio);
  // Records a target "ops/s of `name` >= min_ops_per_s".
  void expect_rate(const std::string& name, double min_ops_per_s);

  // Prints the table (or JSON) and the targets. Returns 0; benchmarks report, they do not fail.
  int finish();

  const Options& options() const { return options_; }
  const Result* find(const std::string& name) const;

 private:
  struct Target {
    std::string name;
    bool ratio;  // else a rate
    double min;
  };
  void print_table() const;
  void print_json() const;

  std::string title_;
  Options options_;
  std::vector<Result> results_;
  std::vector<Target> targets_;
};

}  // namespace fleetmcp::bench
