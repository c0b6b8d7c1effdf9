// Reading one whole input file as text, with the checks every parser wants first (missing file, directory,
// size limit).
#pragma once

#include <string>

namespace shardscope {

// Reads a whole text file (refusing directories, missing files and files over kMaxInputFileBytes) for
// parsing; `what` names the file's role in errors ("scenario", "sweep grid").
std::string read_text_file(const std::string& path, const std::string& what);

}  // namespace shardscope
