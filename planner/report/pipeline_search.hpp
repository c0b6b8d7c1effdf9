// Pipeline search (`parallelism.pipeline`): stages over whole nodes or inside one, the layers cut among them
// by an exact min-max partition, each stage's own exact per-operator plan, composed by the pipeline's
// schedule.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "planner/core/mesh.hpp"
#include "planner/core/pipeline.hpp"
#include "planner/core/pipeline_schedule.hpp"
#include "planner/core/valid_scenario.hpp"
#include "planner/search/planner.hpp"

namespace shardscope {

// One stage of a pipeline: its layers, its scenario (its operators on its nodes, sliced for the mesh) and
// its exact plan at the pipeline's micro-batch and micro-batches.
struct PipelineStagePlan {
  int first_layer = 0;  // layers [first_layer, first_layer + layers)
  int layers = 0;
  bool embedding = false;  // holds the operators before the first layer
  bool head = false;       // holds the operators after the last layer
  double in_flight_micro_batches = 1;
  std::shared_ptr<const ValidScenario> scenario;
  StrategyResult plan;  // the product's plan of the stage (no baselines); fits or not
  StageTiming timing;   // when it fits
};

// One pipeline: a stage count and a tensor/context slice, at the micro-batch with the most tokens/s.
struct PipelineOption {
  int stages = 1;
  TensorSlice slice;
  std::int64_t micro_batch = 0;
  int micro_batches = 0;  // per iteration (the scenario's gradient accumulation steps)
  std::vector<PipelineStagePlan> stage_plans;
  double boundary_bytes = 0;  // one activation (or its gradient) a GPU sends to the next stage's GPU
  // Per boundary s (stage s to (s + 1) mod stages, and back): one send, every GPU of the stage sending at
  // once; the last (the last stage to the first) is used by the interleaved schedule only.
  std::vector<double> send_seconds;
  double boundary_seconds() const;  // the slowest of send_seconds (0 without any)
  double bubble_fraction = 0;
  double iteration_seconds = 0;
  double tokens_per_second = 0;
  double peak_bytes = 0;  // the largest stage peak, runtime reserve included
  bool fits = false;
  int data_parallel = 0;     // data-parallel ranks of a stage (context ranks included)
  int stage_plans_made = 0;  // exact stage plans the partition search made over every micro-batch
  std::string why_not;       // when it does not fit: the reason
  bool pruned = false;       // not planned: its compute alone cannot beat a pipeline already found
  bool bounds_hold = true;   // every stage planned took at least its compute and a tail of at least 0
};

struct PipelineSearch;

// The pipelines of `search` that fit, the fastest first, then in the search's order.
std::vector<const PipelineOption*> fitting_pipelines(const PipelineSearch& search);

// An option's iteration and tokens/s as a plan's prediction (what time to train reads).
PlanPrediction pipeline_prediction(const PipelineOption& option);

struct PipelineSearch {
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;
  std::vector<PipelineOption> options;  // stage counts ascending, then the tensor and context slices
  std::vector<std::string> refused;     // "PP 3: why"
  std::size_t best = 0;                 // the most tokens/s among those that fit
  bool any_fits() const;
};

// Plans `whole` (a generated transformer, unsliced, parallelism.pipeline above 1 or search) for each stage
// count and mesh slice it can be built for. Throws MeshError (field parallelism.pipeline, or the slice's)
// when none can.
PipelineSearch search_pipelines(const Scenario& whole, const Calibration& calibration,
                                const PlanRequest& request = {});

// The pipeline of one given cut (`layers`: each stage's layer count, in order) at one micro-batch, without
// the search: what the search's cut is checked against. Throws MeshError for a cut that does not cover the
// layers or a micro-batch that does not divide the global batch.
PipelineOption pipeline_for_cut(const Scenario& whole, int stages, const TensorSlice& slice,
                                std::int64_t micro_batch, const std::vector<int>& layers,
                                const Calibration& calibration, const PlanRequest& request = {});

// The option's stages run op by op under the search's schedule (pipeline_schedule.hpp): each stage's forward
// and backward per micro-batch (its timing), its tail, the sends send_seconds each, blocking the sender
// when the runtime's sends block. Its iteration_seconds is the option's.
ScheduledPipeline schedule_pipeline(const PipelineSearch& search, const PipelineOption& option);

// "PP 4 (1f1b) x TP 2 + SP x DP 8 (64 GPUs)".
std::string pipeline_text(const PipelineSearch& search, const PipelineOption& option);

}  // namespace shardscope
