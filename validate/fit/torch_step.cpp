// step.py's JSON read with file:line errors, turned into a one-GPU scenario, and priced by the planner.
#include "validate/fit/torch_step.hpp"

#include <filesystem>
#include <sstream>

#include "planner/core/error.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/io/text_file.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope::fit {

namespace {

// The spec's fields as a `transformer:` flow mapping (the spec holds what step.py resolved, defaults
// included, so shardscope builds the model PyTorch ran).
std::string transformer_yaml(const JsonObjectReader& spec, int layers) {
  std::ostringstream y;
  y << "{layers: " << layers;
  for (const char* key :
       {"hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab", "sequence_length"})
    y << ", " << key << ": " << spec.integer(key, 1, std::int64_t{1} << 40);
  for (const char* key : {"mlp", "norm", "positions"}) y << ", " << key << ": " << spec.name(key);
  for (const char* key : {"attention_bias", "mlp_bias", "tied_embeddings", "flash_attention", "dropout"})
    y << ", " << key << ": " << (spec.boolean(key) ? "true" : "false");
  y << "}";
  return y.str();
}

// step.py's checkpointing as the scenario's policy.
const char* checkpoint_policy(const std::string& checkpointing) {
  if (checkpointing == "full") return "all";
  if (checkpointing == "selective-op") return "selective";
  return "none";
}

}  // namespace

TorchStep parse_torch_step(const std::string& text, const std::string& file) {
  const JsonDocument doc(text, file);
  const JsonObjectReader root(doc, "");
  if (root.has("error")) root.fail("error", "the case failed on the GPU: " + root.string("error"));
  TorchStep s;
  s.file = file;
  s.case_name = root.name("case");
  s.framework = root.has("framework") ? root.choice("framework", {"eager", "fsdp2"}) : "eager";
  s.checkpointing = root.choice("checkpointing", {"none", "full", "selective-op"});
  if (root.has("layout")) s.layout = root.choice("layout", {"fused", "separate"});
  if (root.has("attention_backend"))
    s.attention_backend = root.choice("attention_backend", {"default", "flash", "cudnn"});
  s.compile = root.has("compile") && root.boolean("compile");
  if (s.checkpointing == "selective-op" && s.layout != "separate")
    root.fail("checkpointing",
              "selective-op keeps every odd-numbered product's output, and shardscope counts the products "
              "as torchtitan's Llama has them (Q, K, V, gate and up apart: step.py --layout separate); this "
              "step ran layout " +
                  s.layout);
  s.layers = static_cast<int>(root.integer("layers_run", 1, 1 << 20));
  s.micro_batch = root.integer("micro_batch", 1, 1 << 20);
  s.model_yaml = transformer_yaml(root.object("spec"), s.layers);
  s.step_seconds = root.positive_number("step_seconds_median");
  s.forward_seconds = root.positive_number("forward_seconds_median");
  s.backward_seconds = root.positive_number("backward_seconds_median");
  s.optimizer_seconds = root.positive_number("optimizer_seconds_median");
  const JsonObjectReader memory = root.object("memory");
  s.max_allocated_bytes = memory.positive_number("max_allocated_bytes");
  s.max_reserved_bytes = memory.positive_number("max_reserved_bytes");
  return s;
}

TorchStep load_torch_step(const std::string& path) {
  return parse_torch_step(read_text_file(path, "PyTorch step"), path);
}

Scenario torch_step_scenario(const TorchStep& step, const std::string& cluster_file, RuntimeName runtime) {
  const bool is_file =
      cluster_file.find('/') != std::string::npos || cluster_file.find(".yaml") != std::string::npos;
  const std::string cluster = is_file ? "{file: \"" + std::filesystem::absolute(cluster_file).string() + "\"}"
                                      : "{preset: " + cluster_file + "}";
  std::ostringstream y;
  y << "name: torch-" << step.case_name << "\n"
    << "model: {transformer: " << step.model_yaml << "}\n"
    << "cluster: " << cluster << "\n"
    << "training: {precision: mixed-bf16, optimizer: adam, micro_batch: " << step.micro_batch
    << ", checkpointing: " << checkpoint_policy(step.checkpointing) << ", runtime_reserve: 0}\n"
    << "execution: {cross_entropy: pytorch, runtime: " << to_string(runtime)
    << (step.compile ? ", compile: true}\n" : "}\n");
  return parse_scenario_string(y.str(), step.file + " (as a scenario)");
}

TorchStepComparison compare_torch_step(const TorchStep& step, const std::string& cluster_file,
                                       const Calibration& calibration, RuntimeName runtime) {
  Scenario scenario = torch_step_scenario(step, cluster_file, runtime);
  if (scenario.cluster.gpus() != 1) {  // a preset of several GPUs: the step ran on one of them
    scenario.cluster.nodes = 1;
    scenario.cluster.gpus_per_node = 1;
    scenario.training.group_size = 1;
  }
  // An FSDP2 step runs FSDP's plan even on one rank (each unit's parameters gathered into a buffer while in
  // use); an eager step the search's pick (on one GPU, every operator replicated).
  const ValidScenario valid(scenario);
  const SearchOptions one_thread{.observer = nullptr, .threads = 1};
  const StrategyResult planned =
      step.framework == "fsdp2"
          ? plan_strategy(valid, calibration, space_by_name("fsdp", valid.training), one_thread)
          : plan_scenario(valid, calibration,
                          PlanRequest{.with_baselines = false,
                                      .candidate_plans = 0,
                                      .pins = {},
                                      .search = one_thread,
                                      .product = {}})
                .best;
  TorchStepComparison c;
  c.measured = step;
  c.strategy = planned.strategy;
  c.fits = planned.fits;
  if (planned.fits) {
    c.predicted_seconds = planned.plan.predicted.iteration_seconds;
    c.predicted_peak_bytes = planned.plan.predicted.peak_memory_bytes;
    c.predicted_allocated_bytes = planned.allocated_peak_bytes;
  } else {
    c.predicted_peak_bytes = planned.minimum_memory_bytes;
  }
  return c;
}

double TorchStepComparison::step_error() const { return predicted_seconds / measured.step_seconds - 1; }
double TorchStepComparison::allocated_error() const {
  return predicted_allocated_bytes / measured.max_allocated_bytes - 1;
}
double TorchStepComparison::reserved_error() const {
  return predicted_peak_bytes / measured.max_reserved_bytes - 1;
}

}  // namespace shardscope::fit
