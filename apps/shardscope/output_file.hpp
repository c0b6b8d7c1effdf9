// OutputFile: a file the CLI writes (plan --out, simulate --trace/--links/--result-json), checked before the
// work starts and written whole through a temporary file beside it, so a failed run never leaves half a file.
#pragma once

#include <string>

namespace shardscope::cli {

class OutputFile {
 public:
  OutputFile() = default;  // no file asked for: write() does nothing

  // Checks now, before any long work, that `path` can be written: its folder exists and takes a new file
  // (a probe file is created and removed), and an existing `path` is a writable file, not a folder.
  // Throws InputError "OPTION: cannot write PATH: reason" (exit 2).
  OutputFile(std::string option, std::string path);

  bool requested() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Writes `text` as the whole file: into a temporary file in the same folder, closed and renamed over
  // `path` only when complete (a device or pipe such as /dev/stdout is written directly). Throws
  // OutputError "cannot write PATH: reason" (exit 4) and leaves no temporary file behind.
  void write(const std::string& text) const;

 private:
  std::string option_;
  std::string path_;
  bool direct_ = false;  // an existing device, pipe or socket: written in place
};

}  // namespace shardscope::cli
