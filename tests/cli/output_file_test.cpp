// Tests of OutputFile: bad paths are refused before any work (InputError naming the option), files are
// replaced whole or not at all, and a failed write says which file and why.
#include "apps/shardscope/output_file.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "apps/shardscope/exit_status.hpp"
#include "planner/core/error.hpp"

namespace shardscope::cli {
namespace {

namespace fs = std::filesystem;

// A fresh folder for one test, removed with its contents.
class Folder {
 public:
  Folder() : path_(fs::temp_directory_path() / ("shardscope_output_" + std::to_string(::getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Folder() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // The names in the folder (to see that no temporary file is left).
  std::string listing() const {
    std::string names;
    for (const auto& e : fs::directory_iterator(path_)) names += e.path().filename().string() + " ";
    return names;
  }

 private:
  fs::path path_;
};

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string input_error(const std::string& option, const std::string& path) {
  try {
    OutputFile file(option, path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(OutputFile, AMissingFolderOrAFolderIsRefusedUpFrontNamingTheOption) {
  EXPECT_EQ(
      input_error("--out", "/nonexistent-dir/x.json"),
      "--out: cannot write /nonexistent-dir/x.json: No such file or directory (no folder /nonexistent-dir)");
  const Folder folder;
  EXPECT_EQ(input_error("--trace", folder.file("")),
            "--trace: cannot write " + folder.file("") + ": it is a directory; expected a file path");
  std::ofstream(folder.file("plain")) << "x";
  EXPECT_EQ(input_error("--links", folder.file("plain/x.csv")),
            "--links: cannot write " + folder.file("plain/x.csv") + ": Not a directory");
  // The check leaves nothing behind.
  EXPECT_EQ(folder.listing(), "plain ");
}

// An output that is an input, by any spelling or link, is refused; another file, a new one or "-" passes.
TEST(OutputFile, AnOutputThatIsAnInputIsRefusedByDeviceAndInode) {
  const Folder folder;
  const std::string input = folder.file("in.json"), other = folder.file("other.json");
  std::ofstream(input) << "{}";
  std::ofstream(other) << "{}";
  fs::create_hard_link(input, folder.file("hard.json"));
  fs::create_symlink(input, folder.file("soft.json"));
  const auto refused = [&](const std::string& output) {
    try {
      refuse_input_as_output("--out", output, {other, input});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  for (const std::string& same :
       {input, folder.file("hard.json"), folder.file("soft.json"), folder.file("./in.json")})
    EXPECT_EQ(refused(same), "--out: cannot write " + same + ": it is also the input " + input +
                                 ", which writing it would destroy; choose another file");
  std::ofstream(folder.file("third.json")) << "{}";
  EXPECT_EQ(refused(folder.file("third.json")), "");
  EXPECT_EQ(refused(folder.file("new.json")), "");
  EXPECT_EQ(refused("-"), "");
  EXPECT_EQ(refused(""), "");
}

// Two outputs of one command that name one file, new or existing, by any spelling or link, are refused on
// the later option; distinct files, "-" and empty paths pass.
TEST(OutputFile, TwoOutputsNamingOneFileAreRefused) {
  const Folder folder;
  const auto refused = [](const std::vector<std::pair<std::string, std::string>>& outputs) {
    try {
      refuse_shared_outputs(outputs);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string fresh = folder.file("new.json");
  EXPECT_EQ(refused({{"--json", fresh}, {"--markdown", folder.file("./new.json")}}),
            "--markdown: cannot write " + folder.file("./new.json") +
                ": --json writes that file too, and only one of them would be left; choose another file");
  std::ofstream(folder.file("old.json")) << "{}";
  fs::create_symlink(folder.file("old.json"), folder.file("link.json"));
  EXPECT_EQ(refused({{"--out", folder.file("old.json")}, {"--report", ""}, {"--x", folder.file("link.json")}})
                .rfind("--x: cannot write ", 0),
            0u);
  EXPECT_EQ(refused({{"--json", fresh}, {"--markdown", folder.file("other.md")}, {"--score-into", "-"}}), "");
  EXPECT_EQ(refused({{"--json", "-"}, {"--markdown", "-"}, {"--a", ""}, {"--b", ""}}), "");
  EXPECT_EQ(folder.listing(), "link.json old.json ");  // the check creates nothing
}

TEST(OutputFile, WritesTheWholeFileAndReplacesAnOldOne) {
  const Folder folder;
  const std::string path = folder.file("plan.json");
  const OutputFile fresh("--out", path);
  EXPECT_FALSE(fs::exists(path));  // checked, not created, until the work is done
  fresh.write("{\"new\": 1}\n");
  EXPECT_EQ(contents(path), "{\"new\": 1}\n");
  const OutputFile again("--out", path);
  again.write("second\n");
  EXPECT_EQ(contents(path), "second\n");
  EXPECT_EQ(folder.listing(), "plan.json ");
  OutputFile().write("nothing asked for, nothing written");
}

TEST(OutputFile, AFullDeviceFailsWithTheReason) {
  const OutputFile full("--out", "/dev/full");
  try {
    full.write("text");
    FAIL() << "a write to /dev/full succeeded";
  } catch (const OutputError& e) {
    EXPECT_STREQ(e.what(), "cannot write /dev/full: No space left on device");
  }
  OutputFile("--out", "/dev/null").write("discarded");
}

// A full disk, as the file-size limit makes it: the write fails with the reason, the old file stays as it
// was and no temporary file is left.
TEST(OutputFile, AWriteThatRunsOutOfSpaceLeavesTheOldFileAndNoTemporary) {
  const Folder folder;
  const std::string path = folder.file("plan.json");
  std::ofstream(path) << "old plan\n";
  const OutputFile file("--out", path);
  rlimit saved{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    file.write(std::string(100000, 'x'));
  } catch (const OutputError& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_EQ(message, "cannot write " + path + ": File too large");
  EXPECT_EQ(contents(path), "old plan\n");
  EXPECT_EQ(folder.listing(), "plan.json ");
}

}  // namespace
}  // namespace shardscope::cli
