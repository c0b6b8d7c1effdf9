// Sweep result rows (JSON lines): the tool's version and revision, appending one row with one write() under
// O_APPEND and fsync, and reading a results file back (resume, merge).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardscope::cli {

using Json = nlohmann::ordered_json;

std::string tool_version();  // "0.1.0"
std::string git_revision();  // the source's git revision at configure time, or "unknown"

// Appends rows to a results file, which several processes may append to at once: each row is one line
// written by one write() on a descriptor opened with O_APPEND, then fsync'd, so rows never interleave and a
// row reported written survives a crash. A file whose last line was cut short (a writer killed during the
// write) gets a line break first, so the next row starts on a line of its own.
class RowWriter {
 public:
  explicit RowWriter(const std::string& path);  // throws OutputError when it cannot be opened
  ~RowWriter();
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;
  void append(const Json& row);  // row.dump() + "\n"; throws when the write or fsync fails
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Holds an advisory lock (an open-file-description fcntl lock, kept across fork) on a results file for one
// sweep, or one shard of one, while it runs: a second sweep of the same points on the file is refused
// (InputError, exit 2) instead of running every point again. Shards i/n of one grid lock distinct bytes, so
// a job array's tasks still share a file; a sweep without shards locks the whole file. Where the file system
// keeps no fcntl locks the lock is only as good as its support.
class ResultsLock {
 public:
  ResultsLock(const std::string& path, int shard_index, int shard_count);  // shard_count 1: the whole grid
  ~ResultsLock();
  ResultsLock(const ResultsLock&) = delete;
  ResultsLock& operator=(const ResultsLock&) = delete;

 private:
  int fd_ = -1;
};

// The rows of a results file in order; a line that is not a JSON object (a torn last line) is skipped and
// counted in `skipped`. Throws InputError (file:line) for a row nested deeper than the JSON limit, a line
// over 32 MiB, a file over 8 GiB, 100 unreadable lines in a row (not a results file), or a field of a row
// that is not of the type sweep writes there (an index that is text, metrics that are a number). A missing
// file has no rows. `line_numbers`, when given, gets each row's line in the file (1-based), for messages that
// point at a row.
std::vector<Json> read_rows(const std::string& path, int* skipped = nullptr,
                            std::vector<int>* line_numbers = nullptr);

// Refuses up front (InputError "OPTION: cannot write PATH: why", exit 2) a results path a sweep could not
// append to and read back: a folder, a device, pipe or socket (/dev/null, a FIFO), a file it may not write,
// or a new file in a folder that does not exist or takes no new file.
void check_results_path(const std::string& option, const std::string& path);

// A row whose point need not run again: ok or does-not-fit (an error row runs again with --retry-errors).
bool row_is_final(const Json& row);

}  // namespace shardscope::cli
