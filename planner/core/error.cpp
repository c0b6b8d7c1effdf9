// InputError and UsageError formatting.
#include "planner/core/error.hpp"

namespace shardscope {

std::string format_input_error(const std::string& file, int line, const std::string& field,
                               const std::string& message) {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) out += ":" + std::to_string(line);
  out += ": ";
  if (!field.empty()) out += field + ": ";
  out += message;
  return out;
}

InputError::InputError(std::string file, int line, std::string field, std::string message)
    : std::runtime_error(format_input_error(file, line, field, message)),
      file_(std::move(file)),
      line_(line),
      field_(std::move(field)),
      message_(std::move(message)) {}

InputError::InputError(std::string text, std::string message)
    : std::runtime_error(std::move(text)), line_(0), message_(std::move(message)) {}

UsageError::UsageError(std::string option, std::string message)
    : InputError(option + ": " + message, message), option_(std::move(option)) {}

}  // namespace shardscope
