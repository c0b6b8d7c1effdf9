// Sweep result rows: atomic appends (one write() per line, O_APPEND, fsync) and reading them back.
#include "apps/shardscope/sweep_rows.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "apps/shardscope/exit_status.hpp"

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

std::vector<Json> read_rows(const std::string& path, int* skipped, std::vector<int>* line_numbers) {
  std::vector<Json> rows;
  if (skipped != nullptr) *skipped = 0;
  if (line_numbers != nullptr) line_numbers->clear();
  std::ifstream in(path);
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty()) continue;
    Json row = Json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.is_object() || !row.contains("point") || !row["point"].is_string()) {
      if (skipped != nullptr) ++*skipped;
      continue;
    }
    rows.push_back(std::move(row));
    if (line_numbers != nullptr) line_numbers->push_back(line_number);
  }
  return rows;
}

bool row_is_final(const Json& row) {
  const Json status = row.value("status", Json());
  return status == "ok" || status == "does-not-fit";
}

}  // namespace shardscope::cli
