// IterationResult <-> JSON with every field, so that a full simulation result can cross a process boundary.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "exchange/iteration_result.hpp"

namespace shardscope::sim {

// The whole result in a fixed key order (same result -> byte-identical text). Doubles are written with
// enough digits to read back bit for bit; non-finite ones as the strings "inf", "-inf" and "nan".
// Layout: {"format": "shardscope-iteration-result", "version": 1, "iteration_seconds", "samples_per_second",
// "tokens_per_second", "activities", "gpus": [...], "trace": [...], "memory": [...], "links": [...]}.
nlohmann::ordered_json result_to_json(const IterationResult& result);

// Reads what result_to_json wrote. Every key must be present with the right type and no other key may
// appear; errors are InputError(file, line, field, message) with a path such as "trace[3].start_seconds"
// as the field (line 0 except for JSON syntax errors, whose line is known).
IterationResult result_from_json(const nlohmann::json& json, const std::string& file);
IterationResult result_from_json_string(const std::string& text, const std::string& file);
IterationResult load_result_file(const std::string& path);

// Writes result_to_json(result) as one line of compact JSON and a newline.
void write_result_json(std::ostream& out, const IterationResult& result);

}  // namespace shardscope::sim
