// OutputFile: a file the CLI writes (plan --out, simulate --trace/--links/--result-json), checked before the
// work starts and written whole through a temporary file beside it, so a failed run never leaves half a file;
// and the check that an output is none of the command's inputs.
#pragma once

#include <string>
#include <vector>

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

// Refuses (InputError "OPTION: cannot write PATH: it is also the input INPUT ...", exit 2) an output that is
// one of the command's input files: the same file by device and inode, so another spelling, a symbolic link
// or a hard link is caught too. An output that does not exist yet, "-" or an empty path passes.
void refuse_input_as_output(const std::string& option, const std::string& output,
                            const std::vector<std::string>& inputs);

}  // namespace shardscope::cli
