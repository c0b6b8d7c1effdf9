// The pipeline search's cut of the layers: an exact min-max partition over stage plans made once per distinct
// stage (internal to report/pipeline_search.cpp; a header so that it stays a file of its own).
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/scenario.hpp"
#include "planner/core/units.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/search/plan_evaluation.hpp"

namespace shardscope::pipeline_internal {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A (sliced) transformer's operators: those before its first layer, its layers', those after its last.
struct LayerRanges {
  std::size_t front_end = 0;   // operators [0, front_end) come before layer 0
  std::size_t back_begin = 0;  // operators [back_begin, size) come after the last layer
  int layers = 0;
};

inline LayerRanges layer_ranges(const Model& model) {
  LayerRanges r;
  const std::vector<Operator>& ops = model.operators;
  while (r.front_end < ops.size() && ops[r.front_end].layer < 0) ++r.front_end;
  r.back_begin = ops.size();
  while (r.back_begin > r.front_end && ops[r.back_begin - 1].layer < 0) --r.back_begin;
  for (std::size_t i = r.front_end; i < r.back_begin; ++i) r.layers = std::max(r.layers, ops[i].layer + 1);
  return r;
}

struct StageEval {
  std::shared_ptr<const ValidScenario> scenario;
  StrategyResult plan;
  StageTiming timing;
  double step_seconds = kInfinity;  // the partition's objective: infinite when it does not fit
  std::string why_not;
};

// The stage's steady micro-step and its tail: its plan's program scheduled at m and at m + 1 micro-steps.
inline StageTiming stage_timing(const StageEval& e, const Calibration& calibration, int micro_batches) {
  Scenario longer = e.scenario->scenario();
  longer.training.global_batch = 0;
  longer.training.gradient_accumulation_steps = micro_batches + 1;
  const ValidScenario longer_valid(std::move(longer));
  Plan more = e.plan.plan;
  more.gradient_accumulation_steps = micro_batches + 1;
  const double at_m = scheduled_plan(*e.scenario, calibration, e.plan.plan).seconds;
  const double at_more = scheduled_plan(longer_valid, calibration, more).seconds;
  StageTiming t;
  t.step_seconds = at_more - at_m;
  t.tail_seconds = at_m - micro_batches * t.step_seconds;
  return t;
}

// The exact min-max cut of the layers into stages at one micro-batch, each stage planned once per distinct
// content (identical layers: its position and length).
class Partition {
 public:
  Partition(const Scenario& tmpl, const PipelineSearch& search, int stages, std::int64_t micro_batch,
            int micro_batches, const Calibration& calibration, const PlanRequest& request)
      : tmpl_(tmpl),
        ranges_(layer_ranges(tmpl.model)),
        schedule_(search.schedule),
        virtual_stages_(search.virtual_stages),
        stages_(stages),
        micro_batch_(micro_batch),
        micro_batches_(micro_batches),
        calibration_(calibration),
        request_(request),
        uniform_(tmpl.transformer && tmpl.transformer->layer_hidden.empty()) {
    compute_lower_bounds();
  }

  int layers() const { return ranges_.layers; }

  // A cut's slowest step to beat: the even cut's, planned first. A stage whose compute alone exceeds it
  // is never planned (best() treats it as not fitting), which cannot change the optimum.
  void bound_by_even_cut() {
    double slowest = 0;
    int first = 0;
    for (int r = 0; r < stages_; ++r) {
      const int n = ranges_.layers / stages_ + (r < ranges_.layers % stages_ ? 1 : 0);
      slowest = std::max(slowest, step(r, first, n));
      first += n;
    }
    bound_seconds_ = slowest;
  }

  // Why no cut fits: "no cut of the 32 layers into 2 stages fits at micro-batch 1; the even cut's stage 1
  // (16 layers) lacks 3.20 GiB", or the first stage's refusal when it is not memory.
  std::string no_cut_text() {
    std::string text = "no cut of the " + std::to_string(ranges_.layers) + " layers into " +
                       std::to_string(stages_) + " stages fits at micro-batch " +
                       std::to_string(micro_batch_);
    int first = 0;
    for (int r = 0; r < stages_; ++r) {
      const int n = ranges_.layers / stages_ + (r < ranges_.layers % stages_ ? 1 : 0);
      const StageEval& e = eval(r, first, n);
      first += n;
      if (e.plan.fits) continue;
      if (e.plan.shortfall_bytes <= 0) return text + "; " + e.why_not;
      return text + "; the even cut's stage " + std::to_string(r + 1) + " (" + std::to_string(n) +
             " layers) lacks " + units::format_bytes(e.plan.shortfall_bytes);
    }
    return text;
  }

  // Whether a planned stage's step came out below its compute (then the bound was not one, and the cut
  // must be searched again without it).
  bool bound_broken() const { return bound_broken_; }
  void drop_bound() {
    bound_seconds_ = kInfinity;
    best_.clear();
  }

  // The slowest stage's step of the best cut of layers [first, L) into stages [stage, p), and its first
  // stage's length.
  std::pair<double, int> best(int stage, int first) {
    const auto key = std::make_pair(stage, first);
    if (const auto it = best_.find(key); it != best_.end()) return it->second;
    const int last = ranges_.layers - (stages_ - 1 - stage);  // leave a layer for each later stage
    std::pair<double, int> out{kInfinity, last - first};
    if (stage == stages_ - 1) {
      out = {step(stage, first, ranges_.layers - first), ranges_.layers - first};
    } else {
      // step() grows with the length and best(stage + 1, ...) shrinks: the optimum is where they cross.
      int low = 1;
      int high = last - first;
      while (low < high) {
        const int mid = low + (high - low) / 2;
        if (step(stage, first, mid) >= best(stage + 1, first + mid).first) {
          high = mid;
        } else {
          low = mid + 1;
        }
      }
      for (int n : {low - 1, low}) {
        if (n < 1 || n > last - first) continue;
        const double value = std::max(step(stage, first, n), best(stage + 1, first + n).first);
        if (value < out.first) out = {value, n};
      }
    }
    best_.emplace(key, out);
    return out;
  }

  // The layers of each stage of the best cut, or of the equal cut (the interleaved schedule's).
  std::vector<int> cut(bool equal) {
    std::vector<int> lengths;
    int first = 0;
    for (int r = 0; r < stages_; ++r) {
      const int n = equal ? ranges_.layers / stages_ : best(r, first).second;
      lengths.push_back(n);
      first += n;
    }
    return lengths;
  }

  const StageEval& eval(int stage, int first, int layers) {
    const auto key =
        std::make_tuple(stage == 0, stage == stages_ - 1, uniform_ ? -1 : first, layers, in_flight(stage));
    if (const auto it = evals_.find(key); it != evals_.end()) return it->second;
    return evals_.emplace(key, evaluate(stage, first, layers)).first->second;
  }

  int plans_made() const { return static_cast<int>(evals_.size()); }

  // Every operator's forward and backward compute at the micro-batch: the stages' steps add up to at least
  // it.
  double total_compute_seconds() const {
    return layer_prefix_seconds_.back() + front_seconds_ + back_seconds_;
  }

 private:
  double in_flight(int stage) const {
    return in_flight_micro_batches(schedule_, stages_, virtual_stages_, stage, micro_batches_);
  }

  double step(int stage, int first, int layers) {
    // The tolerances keep a stage whose step is its compute (all communication hidden) at the bound.
    if (compute_seconds(stage, first, layers) > bound_seconds_ * (1 + 1e-9)) return kInfinity;
    const StageEval& e = eval(stage, first, layers);
    if (e.step_seconds < compute_seconds(stage, first, layers) * (1 - 1e-12)) bound_broken_ = true;
    return e.step_seconds;
  }

  // Each layer's forward and backward compute at the micro-batch (mesh collectives included), and those of
  // the operators before and after the layers: a stage's step is at least their sum.
  void compute_lower_bounds() {
    Scenario at_batch = tmpl_;
    at_batch.training.micro_batch = micro_batch_;
    at_batch.training.gradient_accumulation_steps = micro_batches_;
    at_batch.training.global_batch = 0;
    const TopologyCostModel model(ValidScenario(std::move(at_batch)), calibration_);
    const auto samples = static_cast<double>(micro_batch_);
    layer_prefix_seconds_.assign(static_cast<std::size_t>(ranges_.layers) + 1, 0.0);
    const std::vector<Operator>& ops = tmpl_.model.operators;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const double seconds = model.compute().forward_seconds(ops[i], samples) +
                             model.compute().backward_seconds(ops[i], samples);
      if (i < ranges_.front_end) {
        front_seconds_ += seconds;
      } else if (i >= ranges_.back_begin) {
        back_seconds_ += seconds;
      } else {
        layer_prefix_seconds_[static_cast<std::size_t>(ops[i].layer) + 1] += seconds;
      }
    }
    for (std::size_t l = 1; l < layer_prefix_seconds_.size(); ++l)
      layer_prefix_seconds_[l] += layer_prefix_seconds_[l - 1];
  }

  double compute_seconds(int stage, int first, int layers) const {
    return layer_prefix_seconds_[static_cast<std::size_t>(first + layers)] -
           layer_prefix_seconds_[static_cast<std::size_t>(first)] + (stage == 0 ? front_seconds_ : 0.0) +
           (stage == stages_ - 1 ? back_seconds_ : 0.0);
  }

  // Whether the stage holds `layer`: its range, or under the interleaved schedule its model chunks (of
  // layers / (stages x virtual_stages) layers each: chunk k on stage k mod stages).
  bool holds(int stage, int first, int layers, int layer) const {
    if (schedule_ != PipelineSchedule::interleaved) return layer >= first && layer < first + layers;
    const int chunk = ranges_.layers / (stages_ * virtual_stages_);
    return (layer / chunk) % stages_ == stage;
  }

  Scenario stage_scenario(int stage, int first, int layers) const {
    Scenario s = tmpl_;
    const std::vector<Operator>& ops = tmpl_.model.operators;
    std::vector<Operator> chosen;
    if (stage == 0) chosen.insert(chosen.end(), ops.begin(), ops.begin() + ranges_.front_end);
    for (std::size_t i = ranges_.front_end; i < ranges_.back_begin; ++i)
      if (holds(stage, first, layers, ops[i].layer)) chosen.push_back(ops[i]);
    if (stage == stages_ - 1) chosen.insert(chosen.end(), ops.begin() + ranges_.back_begin, ops.end());
    s.model.operators = std::move(chosen);
    if (stages_ > 1) s.model.name += " stage " + std::to_string(stage + 1) + "/" + std::to_string(stages_);
    s.mesh.pipeline = PipelineStage{stages_, stage, in_flight(stage)};
    s.training.micro_batch = micro_batch_;
    s.training.gradient_accumulation_steps = micro_batches_;
    return s;
  }

  StageEval evaluate(int stage, int first, int layers) const {
    StageEval e;
    try {
      e.scenario = std::make_shared<const ValidScenario>(stage_scenario(stage, first, layers));
    } catch (const InputError& error) {
      e.why_not = error.field() + ": " + error.message();
      return e;
    }
    PlanRequest request;
    request.with_baselines = false;
    request.search.threads = request_.search.threads;
    e.plan = plan_scenario(*e.scenario, calibration_, request).best;
    if (!e.plan.fits) {
      e.why_not = "stage " + std::to_string(stage + 1) + " (" + std::to_string(layers) +
                  " layers) does not fit at micro-batch " + std::to_string(micro_batch_);
      return e;
    }
    e.timing = stage_timing(e, calibration_, micro_batches_);
    e.step_seconds = e.timing.step_seconds;
    return e;
  }

  const Scenario& tmpl_;
  LayerRanges ranges_;
  PipelineSchedule schedule_;
  int virtual_stages_;
  int stages_;
  std::int64_t micro_batch_;
  int micro_batches_;
  const Calibration& calibration_;
  const PlanRequest& request_;
  bool uniform_;
  std::map<std::tuple<bool, bool, int, int, double>, StageEval> evals_;
  std::map<std::pair<int, int>, std::pair<double, int>> best_;
  std::vector<double> layer_prefix_seconds_;  // compute of layers [0, l)
  double front_seconds_ = 0;
  double back_seconds_ = 0;
  double bound_seconds_ = kInfinity;
  bool bound_broken_ = false;
};

}  // namespace shardscope::pipeline_internal
