// The simulation child's protocol: the `shardscope simulate` command line a parent gives a child for one
// SimulationJob (plan file in, full result file out), and how the child's exit and messages read back.
#pragma once

#include <string>
#include <vector>

#include "exchange/simulation_job.hpp"
#include "planner/core/error.hpp"

namespace shardscope::sim {

// The child's exit status for bad input (InputError, usage): the parent raises an InputError in turn.
constexpr int kChildInputErrorExitStatus = 2;

// `BINARY simulate SCENARIO --plan PLAN_PATH --result-json RESULT_PATH` and every option of `job` spelled
// out (the scenario file may say otherwise). The parent writes the plan (plan_json_text) to PLAN_PATH and
// reads the result (load_result_file, result_json.hpp) from RESULT_PATH after exit status 0. Throws
// InputError for options the command line cannot carry exactly.
std::vector<std::string> simulate_child_arguments(const std::string& binary, const SimulationJob& job,
                                                  const std::string& plan_path,
                                                  const std::string& result_path);

// The child's error message: its standard error without the "error: " prefix and trailing white space.
std::string child_error_message(const std::string& stderr_text);

// Rebuilds the child's InputError from its "file[:line]: message" text (what() is unchanged); the plan
// file at `plan_path` is named as the job's plan.
InputError child_input_error(const std::string& message, const SimulationJob& job,
                             const std::string& plan_path);

}  // namespace shardscope::sim
