// read_text_file: a whole input file as text, refused with a clear InputError when it cannot be one.
#include "planner/io/text_file.hpp"

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "planner/core/error.hpp"
#include "planner/io/input_limits.hpp"

namespace shardscope {

namespace {

// Why `path` cannot be opened, from the error std::filesystem::status gave ("no such file", "a symbolic
// link loop", ...).
std::string open_failure(const std::string& path, const std::error_code& ec) {
  if (ec == std::errc::too_many_symbolic_link_levels) {
    return "a symbolic link loop (too many levels of symbolic links)";
  }
  if (ec == std::errc::no_such_file_or_directory) {
    std::error_code link_ec;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, link_ec))) {
      return "a symbolic link to a file that does not exist";
    }
    return "no such file";
  }
  if (ec == std::errc::not_a_directory) return "a part of the path is not a directory";
  if (ec == std::errc::permission_denied) return "permission denied";
  if (ec == std::errc::filename_too_long) return "the path is too long";
  return ec.message();
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what) {
  if (path.empty())
    throw InputError("<empty path>", 0, "", "the path is empty; expected the path of a " + what + " file");
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    throw InputError(path, 0, "", "cannot open " + what + ": " + open_failure(path, ec));
  }
  if (!std::filesystem::exists(status)) {
    throw InputError(path, 0, "",
                     "cannot open " + what + ": " +
                         open_failure(path, std::make_error_code(std::errc::no_such_file_or_directory)));
  }
  if (std::filesystem::is_directory(status)) {
    throw InputError(path, 0, "", "is a directory; expected a " + what + " file");
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(path, 0, "", "is not a regular file; expected a " + what + " file");
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > kMaxInputFileBytes) {
    throw InputError(path, 0, "",
                     what + " file is larger than " + kMaxInputFileText + " (" + std::to_string(size) +
                         " bytes), the limit for an input file");
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw InputError(path, 0, "",
                     "cannot open " + what + " for reading" +
                         (error != 0 ? ": " + std::generic_category().message(error) : std::string()));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "", "cannot read " + what + ": read error");
  return buffer.str();
}

}  // namespace shardscope
