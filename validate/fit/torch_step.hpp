// A PyTorch reference step (validate/torch/step.py's JSON) against shardscope's prediction of the same step
// on one GPU: the model from the step's spec, the micro-batch, checkpointing none, all or op-level selective,
// mixed bf16 with Adam, PyTorch's cross-entropy on fp32 logits (step.py's loss), under the ideal executor or
// a framework's runtime profile; the measured step time and PyTorch's allocated and reserved peaks beside
// the plan's time and peak.
#pragma once

#include <cstdint>
#include <string>

#include "planner/core/calibration.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope::fit {

struct TorchStep {
  std::string file;
  std::string case_name, framework,
      checkpointing;             // framework: "eager" | "fsdp2"; checkpointing: none | full | selective-op
  std::string layout = "fused";  // fused | separate (Q, K, V, gate and up each a product)
  std::string attention_backend = "default";  // default | flash | cudnn
  std::string model_yaml;                     // the spec as a scenario's `model: transformer:` block
  // torch.compile per block: priced with execution.compile (fused element-wise kernels).
  bool compile = false;
  int layers = 0;
  std::int64_t micro_batch = 1;
  double step_seconds = 0, forward_seconds = 0, backward_seconds = 0, optimizer_seconds = 0;
  double max_allocated_bytes = 0, max_reserved_bytes = 0;
};

// Reads step.py's result; throws InputError (file:line: field) for another file, a failed case ("error"),
// a missing or out-of-range field, or op-level selective checkpointing of the fused layout (shardscope
// counts torchtitan's separate products).
TorchStep parse_torch_step(const std::string& text, const std::string& file);
TorchStep load_torch_step(const std::string& path);

// The step as a one-GPU scenario on `cluster_file` (a cluster YAML or preset whose GPU ran it): the model,
// micro-batch, checkpointing none / all / selective, mixed-bf16, Adam, PyTorch's cross-entropy, compiled
// blocks when the step compiled them (`runtime` must then have a compiled mode), no runtime
// reserve of the scenario's own (`runtime`'s profile applies; its kernel pricing needs the cluster's
// gpu.kernels, which a calibration's `runtime:` fits adjust), the GPU's memory as the limit.
Scenario torch_step_scenario(const TorchStep& step, const std::string& cluster_file,
                             RuntimeName runtime = RuntimeName::ideal);

struct TorchStepComparison {
  std::string strategy;  // the plan priced: fsdp for an FSDP2 step, the search's pick for an eager one
  double predicted_seconds = 0, predicted_peak_bytes = 0;  // the peak: reserved (memory_peak.hpp)
  double predicted_allocated_bytes = 0;                    // the peak of allocated tensors
  bool fits = true;                                        // the one-GPU plan fits the GPU's memory
  double step_error() const;                               // predicted / measured - 1
  double allocated_error() const;  // predicted allocated peak / PyTorch's max allocated - 1
  double reserved_error() const;   // predicted (reserved) peak / PyTorch's max reserved - 1
  TorchStep measured;
};
TorchStepComparison compare_torch_step(const TorchStep& step, const std::string& cluster_file,
                                       const Calibration& calibration,
                                       RuntimeName runtime = RuntimeName::ideal);

}  // namespace shardscope::fit
