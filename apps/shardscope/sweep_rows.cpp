// Sweep result rows: atomic appends (one write() per line, O_APPEND, fsync) and reading them back.
#include "apps/shardscope/sweep_rows.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

#include "apps/shardscope/exit_status.hpp"
#include "planner/core/error.hpp"
#include "planner/io/input_limits.hpp"
#include "planner/io/internal/json_reader.hpp"

#ifndef SHARDSCOPE_VERSION_TEXT
#define SHARDSCOPE_VERSION_TEXT "unknown"
#endif
#ifndef SHARDSCOPE_GIT_REVISION
#define SHARDSCOPE_GIT_REVISION "unknown"
#endif

namespace shardscope::cli {
namespace {

void write_whole(int fd, const std::string& text, const std::string& path) {
  // One write() for the whole line: with O_APPEND the kernel places it at the end in one piece.
  const ssize_t n = ::write(fd, text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size())) {
    throw OutputError("cannot append to " + path + ": " +
                      (n < 0 ? std::string(std::strerror(errno)) : std::string("short write")));
  }
}

}  // namespace

std::string tool_version() { return SHARDSCOPE_VERSION_TEXT; }
std::string git_revision() { return SHARDSCOPE_GIT_REVISION; }

RowWriter::RowWriter(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError("cannot open " + path + " for appending: " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd_, &info) == 0 && info.st_size > 0) {
    const int reader = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    char last = '\n';
    if (reader >= 0) {
      if (::pread(reader, &last, 1, info.st_size - 1) != 1) last = '\n';
      ::close(reader);
    }
    if (last != '\n') write_whole(fd_, "\n", path_);
  }
}

RowWriter::~RowWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void RowWriter::append(const Json& row) {
  write_whole(fd_, row.dump() + "\n", path_);
  if (::fsync(fd_) != 0) throw OutputError("cannot fsync " + path_ + ": " + std::strerror(errno));
}

ResultsLock::ResultsLock(const std::string& path, int shard_index, int shard_count) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw OutputError("cannot open " + path + " to lock it: " + std::strerror(errno));
  // Whole file: from 0 to any length. Shard i/n: one byte far past any results file, distinct per (i, n).
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  const off_t shards_base = off_t{1} << 34;  // 16 GiB: past the 8 GiB a results file may hold
  const off_t n = shard_count, i = shard_index;
  lock.l_start = shard_count <= 1 ? 0 : shards_base + n * (n - 1) / 2 + i;
  lock.l_len = shard_count <= 1 ? 0 : 1;
  if (::fcntl(fd_, F_OFD_SETLK, &lock) == 0) return;
  const int reason = errno;
  ::close(fd_);
  fd_ = -1;
  if (reason == EAGAIN || reason == EACCES) {
    throw UsageError("--out",
                     "another sweep is writing " + path +
                         (shard_count <= 1 ? std::string()
                                           : " with shard " + std::to_string(shard_index) + "/" +
                                                 std::to_string(shard_count) + ", or without shards") +
                         ": running the same points twice would duplicate its rows; wait for it, or give "
                         "another --out");
  }
  if (reason == ENOLCK || reason == EINVAL || reason == EOPNOTSUPP || reason == ENOSYS) {
    // A file system without fcntl locks: the sweep runs unguarded rather than not at all.
    std::cerr << "warning: cannot lock " << path << " (" << std::strerror(reason)
              << "): this file system keeps no locks, so a second sweep on it would not be refused\n";
    return;
  }
  throw OutputError("cannot lock " + path + ": " + std::strerror(reason));
}

ResultsLock::~ResultsLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the description releases its lock
}

namespace {

// A results file's limits: one row's line (the input-file limit, kMaxInputFileBytes) and the whole file (a
// 10^6-point grid's rows take about 3 GB), so /dev/zero or /dev/urandom end with a message, not memory.
constexpr std::uintmax_t kMaxResultsBytes = std::uintmax_t{8} << 30;
constexpr int kMaxUnreadableInARow = 100;

// The next line of `in` (without its newline) into `line`; false at the end. Throws InputError past the
// line or file limit.
bool next_line(std::istream& in, std::string& line, const std::string& path, int line_number,
               std::uintmax_t& total) {
  line.clear();
  std::streambuf* buffer = in.rdbuf();
  bool any = false;
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc()) {
    any = true;
    if (++total > kMaxResultsBytes)
      throw InputError(path, line_number, "", "more than 8 GiB: not a results file");
    if (c == '\n') return true;
    line.push_back(static_cast<char>(c));
    if (line.size() > kMaxInputFileBytes) {
      throw InputError(path, line_number, "",
                       "a line longer than " + std::string(kMaxInputFileText) + ": not a results row");
    }
  }
  return any;
}

// A field of a row at `line_number` is not what sweep writes there.
[[noreturn]] void bad_field(const std::string& path, int line_number, const std::string& field,
                            const std::string& expected, const Json& value) {
  std::string got = value.dump();
  if (got.size() > 40) got = got.substr(0, 37) + "...";
  throw InputError(path, line_number, field, "expected " + expected + ", got " + got);
}

// The fields sweep writes, each of the type it writes (a missing one is allowed: older rows lack some).
void check_row_fields(const Json& row, const std::string& path, int line_number) {
  auto check = [&](const char* field, bool ok, const char* expected) {
    if (row.contains(field) && !ok) bad_field(path, line_number, field, expected, row[field]);
  };
  auto is = [&](const char* field, bool (Json::*type)() const noexcept) {
    return !row.contains(field) || (row[field].*type)();
  };
  check("grid", is("grid", &Json::is_string), "a string");
  check("index", is("index", &Json::is_number_unsigned), "a whole number of 0 or more");
  check("version", is("version", &Json::is_string), "a string");
  check("revision", is("revision", &Json::is_string), "a string");
  check("simulated", is("simulated", &Json::is_boolean), "true or false");
  check("error", is("error", &Json::is_string), "a string");
  const Json status = row.value("status", Json("ok"));
  check("status", status == "ok" || status == "does-not-fit" || status == "error",
        "ok, does-not-fit or error");
  check("wall_seconds", is("wall_seconds", &Json::is_number) && row.value("wall_seconds", 0.0) >= 0,
        "a number of seconds, 0 or more");
  check("axes", is("axes", &Json::is_object), "an object of axis values");
  const Json axes = row.value("axes", Json::object());  // items() of a temporary would outlive it
  for (const auto& [axis, value] : axes.items()) {
    if (!value.is_primitive() || value.is_null())
      bad_field(path, line_number, "axes." + axis, "a value (text, number or true/false)", value);
  }
  check("metrics", is("metrics", &Json::is_object), "an object of strategies");
  const Json all_metrics = row.value("metrics", Json::object());
  for (const auto& [strategy, metrics] : all_metrics.items()) {
    if (!metrics.is_object())
      bad_field(path, line_number, "metrics." + strategy, "an object of metrics", metrics);
    for (const auto& [name, value] : metrics.items()) {
      if (!value.is_primitive() || value.is_null())
        bad_field(path, line_number, "metrics." + strategy + "." + name, "a number, text or true/false",
                  value);
    }
  }
}

}  // namespace

std::vector<Json> read_rows(const std::string& path, int* skipped, std::vector<int>* line_numbers) {
  std::vector<Json> rows;
  if (skipped != nullptr) *skipped = 0;
  if (line_numbers != nullptr) line_numbers->clear();
  std::ifstream in(path);
  std::string line;
  int line_number = 0;
  std::uintmax_t total = 0;
  int unreadable_in_a_row = 0;
  while (next_line(in, line, path, line_number + 1, total)) {
    ++line_number;
    if (line.empty()) continue;
    check_json_nesting(line, path, line_number);  // a parser would recurse through 60,000 levels
    Json row = Json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.is_object() || !row.contains("point") || !row["point"].is_string()) {
      if (skipped != nullptr) ++*skipped;
      // A torn last line is one; a hundred in a row is another kind of file (or /dev/urandom).
      if (++unreadable_in_a_row >= kMaxUnreadableInARow) {
        throw InputError(
            path, line_number, "",
            std::to_string(kMaxUnreadableInARow) +
                " lines in a row are not results rows (JSON objects with a \"point\"): not a results "
                "file of shardscope sweep");
      }
      continue;
    }
    unreadable_in_a_row = 0;
    check_row_fields(row, path, line_number);
    rows.push_back(std::move(row));
    if (line_numbers != nullptr) line_numbers->push_back(line_number);
  }
  return rows;
}

void check_results_path(const std::string& option, const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    throw UsageError(option, "cannot write " + path + ": " + why);
  };
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0) {
    if (S_ISDIR(info.st_mode))
      refuse("it is a folder; name a results file in it (" + path + "/results.jsonl)");
    if (!S_ISREG(info.st_mode)) {
      refuse(
          "it is not a regular file (a device, pipe or socket): a sweep appends its rows to a file and "
          "reads them back with --resume");
    }
    if (::access(path.c_str(), W_OK) != 0) refuse(std::strerror(errno));
    return;
  }
  if (errno != ENOENT && errno != ENOTDIR) refuse(std::strerror(errno));
  std::string folder = std::filesystem::path(path).parent_path().string();
  if (folder.empty()) folder = ".";
  if (::stat(folder.c_str(), &info) != 0)
    refuse("its folder " + folder + " cannot be used: " + std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) refuse(folder + " is not a folder");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    refuse("no new file can be made in " + folder + ": " + std::strerror(errno));
}

bool row_is_final(const Json& row) {
  const Json status = row.value("status", Json());
  return status == "ok" || status == "does-not-fit";
}

}  // namespace shardscope::cli
