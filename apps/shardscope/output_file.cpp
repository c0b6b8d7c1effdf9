// OutputFile: up-front checks of an output path, and atomic writes (temporary file + rename) with strerror.
#include "apps/shardscope/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "apps/shardscope/exit_status.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

std::string reason(int error) { return std::strerror(error); }

// The temporary file beside `path` for this process: "PATH.tmp-PID".
// Unique within the process too: two outputs of one command are staged side by side.
std::string temporary_path(const std::string& path) {
  static std::atomic<unsigned> count{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(count++);
}

// Writes all of `text` to `fd`; the errno of the failure, or 0.
int write_all(int fd, const std::string& text) {
  const char* data = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

OutputFile::OutputFile(std::string option, std::string path)
    : option_(std::move(option)), path_(std::move(path)) {
  const auto refuse = [&](const std::string& why) {
    throw UsageError(option_, "cannot write " + path_ + ": " + why);
  };
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) refuse("it is a directory; expected a file path");
    if (::access(path_.c_str(), W_OK) != 0) refuse(reason(errno));
    if (!S_ISREG(st.st_mode)) {
      direct_ = true;  // /dev/null, /dev/stdout, a named pipe: nothing to replace
      return;
    }
  } else if (errno != ENOENT) {
    refuse(reason(errno));  // a path through a file, a loop of links, no permission to look
  }
  // The folder must take a new file (the temporary one): create the probe and remove it again.
  const std::string probe = temporary_path(path_);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    const std::filesystem::path folder = std::filesystem::path(path_).parent_path();
    refuse(reason(error) +
           (error == ENOENT && !folder.empty() ? " (no folder " + folder.string() + ")" : ""));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void OutputFile::write(const std::string& text) const { write_together({{this, text}}); }

std::string OutputFile::stage(const std::string& text) const {
  if (path_.empty()) return "";
  const auto fail = [&](int error) { throw OutputError("cannot write " + path_ + ": " + reason(error)); };
  if (direct_) {
    const int fd = ::open(path_.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0) fail(errno);
    const int error = write_all(fd, text);
    if (::close(fd) != 0 && error == 0) fail(errno);
    if (error != 0) fail(error);
    return "";
  }
  const std::string temporary = temporary_path(path_);
  struct stat st {};
  const bool existed = ::stat(path_.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(errno);
  int error = write_all(fd, text);
  if (existed && ::fchmod(fd, st.st_mode & 07777) != 0) {
    // keeping the old file's permissions is a courtesy: a file owned by another user keeps the umask's
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error != 0) {
    ::unlink(temporary.c_str());
    fail(error);
  }
  return temporary;
}

void OutputFile::commit(const std::string& temporary) const {
  if (temporary.empty()) return;
  if (::rename(temporary.c_str(), path_.c_str()) == 0) return;
  const int error = errno;
  ::unlink(temporary.c_str());
  throw OutputError("cannot write " + path_ + ": " + reason(error));
}

void write_together(const std::vector<std::pair<const OutputFile*, std::string>>& files) {
  std::vector<std::string> temporaries(files.size());
  const auto remove_from = [&](std::size_t first) {
    for (std::size_t i = first; i < temporaries.size(); ++i) {
      if (!temporaries[i].empty()) ::unlink(temporaries[i].c_str());
    }
  };
  try {
    // Regular files first; devices and pipes (written in place, which cannot be undone) once all are staged.
    for (std::size_t i = 0; i < files.size(); ++i) {
      if (!files[i].first->direct_) temporaries[i] = files[i].first->stage(files[i].second);
    }
    for (const auto& [file, text] : files) {
      if (file->direct_) file->stage(text);
    }
  } catch (...) {
    remove_from(0);
    throw;
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    try {
      files[i].first->commit(temporaries[i]);
    } catch (...) {
      remove_from(i + 1);
      throw;
    }
  }
}

void refuse_input_as_output(const std::string& option, const std::string& output,
                            const std::vector<std::string>& inputs) {
  if (output.empty() || output == "-") return;
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return;  // not there yet: no input can be it
  for (const std::string& input : inputs) {
    struct stat in {};
    if (input.empty() || ::stat(input.c_str(), &in) != 0) continue;
    if (in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
      throw UsageError(option, "cannot write " + output + ": it is also the input " + input +
                                   ", which writing it would destroy; choose another file");
    }
  }
}

namespace {

// Whether two paths name one file: the same normalised absolute path, or the same device and inode.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  const std::filesystem::path pa = std::filesystem::weakly_canonical(std::filesystem::absolute(a), error);
  const std::filesystem::path pb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), error);
  if (!error && pa == pb) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

void refuse_shared_outputs(const std::vector<std::pair<std::string, std::string>>& outputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const auto& [option, path] = outputs[i];
    if (path.empty() || path == "-") continue;
    for (std::size_t j = 0; j < i; ++j) {
      const auto& [earlier, earlier_path] = outputs[j];
      if (earlier_path.empty() || earlier_path == "-" || !same_file(path, earlier_path)) continue;
      throw UsageError(option, "cannot write " + path + ": " + earlier +
                                   " writes that file too, and only one of them would be left; choose "
                                   "another file");
    }
  }
}

}  // namespace shardscope::cli
