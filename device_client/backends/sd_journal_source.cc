// sd-journal (sd-journal(3)): matches on _SYSTEMD_UNIT for each allow-listed unit (OR), read from
// the tail backwards. A journal handle per call: handles are not thread-safe and opening one
// costs a few mmaps, well within the kind's 5/s clamp.
#include <systemd/sd-journal.h>

#include <filesystem>

#include "device_client/base/catalogue_error.h"
#include "device_client/backends/log_source.h"

namespace fleetmcp::device {
namespace {

// The fields log_entry_from_fields reads, fetched one by one instead of enumerating all of them.
constexpr const char* kFields[] = {"MESSAGE", "PRIORITY", "_SYSTEMD_UNIT", "SYSLOG_IDENTIFIER"};

class SdJournalSource : public LogSource {
 public:
  SdJournalSource(std::vector<std::string> units, std::vector<std::string> dirs)
      : units_(std::move(units)), dirs_(std::move(dirs)) {}

  Result<LogPage> query(const LogQuery& q) override {
    if (Status present = check_present(); !present) return present.error();
    sd_journal* j = nullptr;
    if (const int rc = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY); rc < 0) {
      return failed_precondition("cannot open the systemd journal: " + errno_text(-rc),
                                 "add the service user to the systemd-journal group");
    }
    std::unique_ptr<sd_journal, void (*)(sd_journal*)> owned(j, sd_journal_close);
    for (const auto& unit : units_) {
      if (!q.unit.empty() && unit != q.unit) continue;  // the handler checked q.unit is one of them
      const std::string match = "_SYSTEMD_UNIT=" + unit;
      sd_journal_add_match(j, match.data(), match.size());
      sd_journal_add_disjunction(j);
    }
    if (q.until_ms) {
      sd_journal_seek_realtime_usec(j, static_cast<uint64_t>(*q.until_ms) * 1000 + 999);
    } else {
      sd_journal_seek_tail(j);
    }
    return page_newest_first(q, [j]() -> std::optional<LogEntry> {
      if (sd_journal_previous(j) <= 0) return std::nullopt;
      JournalFields f;
      for (const char* name : kFields) {
        const void* data = nullptr;
        size_t len = 0;
        if (sd_journal_get_data(j, name, &data, &len) < 0) continue;
        const std::string_view kv(static_cast<const char*>(data), len);
        const auto eq = kv.find('=');
        if (eq != std::string_view::npos) f[std::string(name)] = std::string(kv.substr(eq + 1));
      }
      uint64_t us = 0;
      sd_journal_get_realtime_usec(j, &us);
      f["__REALTIME_TIMESTAMP"] = std::to_string(us);
      return log_entry_from_fields(f);
    });
  }

 private:
  Status check_present() const {
    std::error_code ec;
    for (const auto& d : dirs_) {
      if (std::filesystem::is_directory(d, ec)) return {};
    }
    return failed_precondition("this device has no systemd journal",
                               "run fleetmcp-device on a systemd host (journald), or remove this capability");
  }

  const std::vector<std::string> units_, dirs_;
};

}  // namespace

std::unique_ptr<LogSource> make_sd_journal_source(std::vector<std::string> units, std::vector<std::string> journal_dirs) {
  return std::make_unique<SdJournalSource>(std::move(units), std::move(journal_dirs));
}

}  // namespace fleetmcp::device
