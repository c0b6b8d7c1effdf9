// InputError: the one error type for bad input, carrying file, line and field (file:line: field: message);
// UsageError: a bad command-line option (OPTION: message); PlanDoesNotFit: a given plan over the memory
// limit.
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

 protected:
  // For UsageError: what() is `text` as given; no file, line or field.
  InputError(std::string text, std::string message);

 private:
  std::string file_;
  int line_;
  std::string field_;
  std::string message_;
};

// A bad command-line option: its value, or options that do not go together. what() is "OPTION: message"
// ("--shard: expected i/n ..."; OPTION may carry its value: "--set model.layers=abc"). The option is never
// put in a file's place: file() is empty and line() 0. It is bad input like any InputError (exit 2), so
// every handler of bad input handles it too.
class UsageError : public InputError {
 public:
  UsageError(std::string option, std::string message);
  const std::string& option() const { return option_; }

 private:
  std::string option_;
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
