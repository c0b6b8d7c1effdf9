// The simulation child's protocol and result JSON, built and read without SimGrid (shardscope::exchange).
#include "exchange/child_protocol.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "exchange/result_export.hpp"
#include "exchange/result_json.hpp"

namespace shardscope::sim {
namespace {

SimulationJob job() {
  SimulationJob j;
  j.scenario_file = "s.yaml";
  j.plan.strategy = "osdp";
  return j;
}

TEST(ChildProtocol, SpellsOutEveryOptionAndNamesThePlanAndResultFiles) {
  SimulationJob j = job();
  j.options.overlap = false;
  j.options.steady_state = false;
  j.options.bucket_bytes = 4096;
  j.calibration_file = "cal.yaml";
  const std::vector<std::string> args = simulate_child_arguments("/bin/shardscope", j, "p.json", "r.json");
  const std::vector<std::string> expected = {"/bin/shardscope",
                                             "simulate",
                                             "s.yaml",
                                             "--plan",
                                             "p.json",
                                             "--result-json",
                                             "r.json",
                                             "--prefetch",
                                             "1",
                                             "--trace-ranks",
                                             "8",
                                             "--coarse-above",
                                             "16",
                                             "--serial",
                                             "--collectives",
                                             to_string(j.plan.collectives),
                                             "--every-step",
                                             "--bucket",
                                             "4096",
                                             "--calibration",
                                             "cal.yaml"};
  EXPECT_EQ(args, expected);
}

TEST(ChildProtocol, RefusesOptionsTheCommandLineCannotCarry) {
  const auto field = [](const SimulationJob& j) {
    try {
      simulate_child_arguments("shardscope", j, "p", "r");
    } catch (const InputError& e) {
      return e.field();
    }
    return std::string("accepted");
  };
  SimulationJob j = job();
  j.options.prefetch_depth = -1;
  EXPECT_EQ(field(j), "options.prefetch_depth");
  j = job();
  j.options.trace_ranks = "-1";
  EXPECT_EQ(field(j), "options.trace_ranks");
  j = job();
  j.options.coarse_above = -1;
  EXPECT_EQ(field(j), "options.coarse_above");
  j = job();
  j.options.bucket_bytes = 1.5;
  EXPECT_EQ(field(j), "options.bucket_bytes");
  j = job();
  j.options.max_activities = 5;
  EXPECT_EQ(field(j), "options.max_activities");
  j = job();
  j.options.steady_state_proof_steps = 3;
  EXPECT_EQ(field(j), "options.steady_state_proof_steps");
  j = job();
  j.options.merge_nccl_channels = false;  // the per-channel reference runs in-process only
  EXPECT_EQ(field(j), "options.merge_nccl_channels");
  EXPECT_EQ(field(job()), "accepted");
}

TEST(ChildProtocol, ReadsTheChildsMessagesBackAsInputErrors) {
  EXPECT_EQ(kChildInputErrorExitStatus, 2);
  EXPECT_EQ(child_error_message("error: s.yaml:3: model: expected a name\n\n"),
            "s.yaml:3: model: expected a name");
  EXPECT_EQ(child_error_message(""), "");
  const SimulationJob j = job();
  const InputError with_line = child_input_error("s.yaml:3: model: expected a name", j, "/tmp/p.json");
  EXPECT_EQ(with_line.file(), "s.yaml");
  EXPECT_EQ(with_line.line(), 3);
  const InputError plan = child_input_error("/tmp/p.json: operators: too few", j, "/tmp/p.json");
  EXPECT_EQ(plan.file(), "plan 'osdp'");
  EXPECT_EQ(plan.line(), 0);
  const InputError bare = child_input_error("no colon here", j, "/tmp/p.json");
  EXPECT_EQ(bare.file(), "s.yaml");
}

TEST(ResultExchange, RoundTripsAResultAndItsTraceWithoutTheSimulator) {
  IterationResult r;
  r.iteration_seconds = 1.25;
  r.gpus = {{0, 1e9, 0.5, 0.1}};
  r.trace = {{0, 1, "all-gather", 0.25, 0.5}};
  r.memory = {{0, 0.25, MemoryBytes{}}};
  r.links = {{"link-0", "up", 1e10, 5e8, 0.04}};
  std::ostringstream out;
  write_result_json(out, r);
  EXPECT_EQ(result_from_json_string(out.str(), "r.json"), r);
  EXPECT_EQ(trace_event_json(r)["traceEvents"].size(), 3u + 1u + 1u);  // names, the task, the memory
  EXPECT_THROW(result_from_json_string("{}", "r.json"), InputError);
  EXPECT_THROW(load_result_file("/nonexistent/result.json"), InputError);
}

}  // namespace
}  // namespace shardscope::sim
