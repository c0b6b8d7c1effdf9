// OutputFile: a file the CLI writes (plan --out, simulate --trace/--links/--result-json), checked before the
// work starts and written whole through a temporary file beside it, so a failed run never leaves half a file;
// and the check that an output is none of the command's inputs.
#pragma once

#include <string>
#include <utility>
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
  friend void write_together(const std::vector<std::pair<const OutputFile*, std::string>>& files);
  // A regular file's text goes into its temporary file (its path returned, "" when nothing is asked for);
  // a device or pipe is written in place ("" returned). Throws OutputError and leaves no temporary file.
  std::string stage(const std::string& text) const;
  // Renames a staged temporary file over the path. Throws OutputError.
  void commit(const std::string& temporary) const;

  std::string option_;
  std::string path_;
  bool direct_ = false;  // an existing device, pipe or socket: written in place
};

// Writes several outputs of one command all or none: every text is staged in its temporary file first, and
// the files are renamed into place only when all were written; when one fails (a full disk) the others'
// temporary files are removed, earlier files are left as they were, and its OutputError is thrown.
void write_together(const std::vector<std::pair<const OutputFile*, std::string>>& files);

// Refuses (InputError "OPTION: cannot write PATH: it is also the input INPUT ...", exit 2) an output that is
// one of the command's input files: the same file by device and inode, so another spelling, a symbolic link
// or a hard link is caught too. An output that does not exist yet, "-" or an empty path passes.
void refuse_input_as_output(const std::string& option, const std::string& output,
                            const std::vector<std::string>& inputs);

// Refuses (UsageError on the later option, exit 2) two of a command's outputs that name one file, whether it
// exists yet or not (paths compared made absolute and normalised, existing ones by device and inode too):
// writing both would leave only one of them. Empty paths and "-" pass. `outputs`: (option, path) pairs.
void refuse_shared_outputs(const std::vector<std::pair<std::string, std::string>>& outputs);

}  // namespace shardscope::cli
