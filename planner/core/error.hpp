// InputError: the one error type for bad input, carrying file, line and field (file:line: field: message).
#pragma once

#include <stdexcept>
#include <string>

namespace shardscope {

class InputError : public std::runtime_error {
 public:
  // line 0 means "the whole file" (e.g. empty file); field may be empty for file-level errors.
  InputError(std::string file, int line, std::string field, std::string message);

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string message_;
};

// Formats "file:line: field: message" (line and field omitted when absent).
std::string format_input_error(const std::string& file, int line, const std::string& field,
                               const std::string& message);

}  // namespace shardscope
