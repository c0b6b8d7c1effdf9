// InputError: the one error type for bad input, carrying file, line and field (file:line: field: message);
// PlanDoesNotFit: a given plan over the memory limit.
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

// A plan (read from a file, or built in code) whose predicted peak memory per GPU is over the scenario's
// memory limit: nothing of it can run. `shardscope` exits 3 for it, as when no plan fits.
class PlanDoesNotFit : public std::runtime_error {
 public:
  PlanDoesNotFit(const std::string& message, double peak_bytes, double limit_bytes)
      : std::runtime_error(message), peak_bytes_(peak_bytes), limit_bytes_(limit_bytes) {}
  double peak_bytes() const { return peak_bytes_; }
  double limit_bytes() const { return limit_bytes_; }

 private:
  double peak_bytes_;
  double limit_bytes_;
};

// Formats "file:line: field: message" (line and field omitted when absent).
std::string format_input_error(const std::string& file, int line, const std::string& field,
                               const std::string& message);

}  // namespace shardscope
