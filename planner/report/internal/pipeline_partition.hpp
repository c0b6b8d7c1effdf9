// The pipeline search's cut of the layers: an exact min-max partition over stage plans made once per distinct
// stage (internal to report/pipeline_search.cpp; a header so that it stays a file of its own).
#pragma once

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
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
  t.forward_seconds = t.step_seconds * plan_forward_share(*e.scenario, calibration, e.plan.plan);
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

  // A cut's slowest step to beat: the even cut's, planned first. A stage whose compute alone exceeds it
  // is never planned (best() treats it as not fitting), which cannot change the optimum.
  // The equal cut's stage length: the interleaved schedule's chunks, else the even cut's.
  int equal_length(int stage) const {
    if (schedule_ != PipelineSchedule::interleaved) return even_length(stage);
    int out = 0;
    for (const LayerRange& c : interleaved_chunks(ranges_.layers, stages_, virtual_stages_, stage))
      out += c.layers;
    return out;
  }

  // The even cut's stage length: L / p, the first L mod p stages one more.
  int even_length(int stage) const {
    return ranges_.layers / stages_ + (stage < ranges_.layers % stages_ ? 1 : 0);
  }

  // Identical layers: each stage's longest length that fits, by bisection (a longer stage holds more), so
  // that longer ones are never planned. False when no cut can fit: the longest add up to fewer layers.
  bool find_longest_fitting() {
    if (!uniform_) return true;
    longest_.assign(static_cast<std::size_t>(stages_), ranges_.layers);
    int total = 0;
    for (int r = 0; r < stages_; ++r) {
      int low = 0;  // fits (0: nothing fits)
      int high = ranges_.layers - (stages_ - 1);
      while (low < high) {
        const int mid = low + (high - low + 1) / 2;
        if (eval(r, 0, mid).plan.fits) {
          low = mid;
        } else {
          high = mid - 1;
        }
      }
      longest_[static_cast<std::size_t>(r)] = low;
      if (low == 0) return false;
      total += low;
    }
    return total >= ranges_.layers;
  }

  bool uniform() const { return uniform_; }

  // Identical layers: the min-max cut by bisection on the slowest step tau. A stage's length that keeps its
  // step within tau is found by bisection (steps grow with the length), and tau is feasible when those
  // lengths add up to the layers; tau is narrowed to 1e-12 of itself, and the cut takes each stage's
  // longest length within it, the last ones what is left. Nullopt when no cut fits.
  std::optional<std::vector<int>> threshold_cut() {
    double high = 0;  // feasible: the even cut's slowest step, or every stage at its longest that fits
    for (int r = 0; r < stages_; ++r) high = std::max(high, step(r, 0, even_length(r)));
    if (high == kInfinity) {
      if (!find_longest_fitting()) return std::nullopt;
      high = 0;
      for (int r = 0; r < stages_; ++r)
        high = std::max(high, step(r, 0, longest_[static_cast<std::size_t>(r)]));
    }
    bound_seconds_ = high;  // a stage whose compute exceeds it is never within: not planned
    // Every step at least its compute: the slowest at least an even share (checked after, as the bound).
    const std::optional<std::vector<int>> cut =
        bisect_threshold(total_compute_seconds() / stages_ * (1 - 1e-8), high);
    if (!bound_broken_) return cut;
    bound_seconds_ = kInfinity;
    return bisect_threshold(0, high);
  }

  // Narrows a feasible `high` down to 1e-12 of itself above an infeasible `low`; the cut within it.
  std::optional<std::vector<int>> bisect_threshold(double low, double high) {
    for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
      const double mid = 0.5 * (low + high);
      if (lengths_within(mid)) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return lengths_within(high);
  }

  void bound_by_even_cut() {
    double slowest = 0;
    int first = 0;
    for (int r = 0; r < stages_; ++r) {
      const int n = even_length(r);
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
      const int n = even_length(r);
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
  void drop_bound() { set_bound(kInfinity); }
  double bound() const { return bound_seconds_; }
  // Searches again under `seconds`: exact when the optimum is at most it (no stage over it can be part of
  // a cut that good).
  void set_bound(double seconds) {
    bound_seconds_ = seconds;
    best_.clear();
  }

  // The slowest stage's step of the best cut of layers [first, L) into stages [stage, p), and its first
  // stage's length.
  std::pair<double, int> best(int stage, int first) {
    const auto key = std::make_pair(stage, first);
    if (const auto it = best_.find(key); it != best_.end()) return it->second;
    const int last = ranges_.layers - (stages_ - 1 - stage);  // leave a layer for each later stage
    std::pair<double, int> out{kInfinity, last - first};
    // The stages left share the compute left: when even an equal share exceeds the bound, so does the best.
    const double left =
        (layer_prefix_seconds_.back() - layer_prefix_seconds_[static_cast<std::size_t>(first)] +
         (stage == 0 ? front_seconds_ : 0.0) + back_seconds_) /
        (stages_ - stage);
    if (left > bound_seconds_ * (1 + 1e-8)) {
      best_.emplace(key, out);
      return out;
    }
    if (stage == stages_ - 1) {
      out = {step(stage, first, ranges_.layers - first), ranges_.layers - first};
    } else {
      // step() grows with the length and best(stage + 1, ...) shrinks: the optimum is where they cross.
      int low = 1;
      int high = last - first;
      while (low < high) {
        const int mid = low + (high - low) / 2;
        // Cheapest first: a stage over the bound is infinite unplanned; a rest beyond it makes every
        // shorter stage infinite too (the rest only grows), so the crossing lies above mid.
        if (over_bound(stage, first, mid)) {
          high = mid;
        } else if (best(stage + 1, first + mid).first == kInfinity) {
          low = mid + 1;
        } else if (step(stage, first, mid) >= best(stage + 1, first + mid).first) {
          high = mid;
        } else {
          low = mid + 1;
        }
      }
      for (int n : {low - 1, low}) {
        if (n < 1 || n > last - first) continue;
        const double rest = best(stage + 1, first + n).first;
        if (rest == kInfinity) continue;
        const double value = std::max(step(stage, first, n), rest);
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
      const int n = equal ? equal_length(r) : best(r, first).second;
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

  // The longest length of stage r whose step is within `seconds` (0: none).
  int longest_within(int stage, double seconds) {
    int low = 0;
    int high = ranges_.layers - (stages_ - 1);
    if (!longest_.empty()) high = std::min(high, longest_[static_cast<std::size_t>(stage)]);
    while (low < high) {
      const int mid = low + (high - low + 1) / 2;
      if (step(stage, 0, mid) <= seconds) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }

  // A cut whose every step is within `seconds`: each stage its longest such length while the later stages
  // keep a layer each, the rest to the last ones; nullopt when those lengths do not reach the layers.
  std::optional<std::vector<int>> lengths_within(double seconds) {
    std::vector<int> longest;
    int total = 0;
    for (int r = 0; r < stages_; ++r) {
      longest.push_back(longest_within(r, seconds));
      if (longest.back() == 0) return std::nullopt;
      total += longest.back();
    }
    if (total < ranges_.layers) return std::nullopt;
    std::vector<int> lengths;
    int left = ranges_.layers;
    for (int r = 0; r < stages_; ++r) {
      const int n = std::min(longest[static_cast<std::size_t>(r)], left - (stages_ - 1 - r));
      lengths.push_back(n);
      left -= n;
    }
    return lengths;
  }

  // Whether the stage's compute alone exceeds the bound. The tolerances keep a stage whose step is its
  // compute (all communication hidden) at the bound.
  bool over_bound(int stage, int first, int layers) const {
    if (!longest_.empty() && layers > longest_[static_cast<std::size_t>(stage)]) return true;  // does not fit
    return compute_seconds(stage, first, layers) > bound_seconds_ * (1 + 1e-8);
  }

  double step(int stage, int first, int layers) {
    if (over_bound(stage, first, layers)) return kInfinity;
    const StageEval& e = eval(stage, first, layers);
    // A step is its plan's program at m + 1 micro-steps less at m: rounding of about 1e-14 x m each.
    if (e.step_seconds < compute_seconds(stage, first, layers) * (1 - 1e-9)) bound_broken_ = true;
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
    for (const LayerRange& c : interleaved_chunks(ranges_.layers, stages_, virtual_stages_, stage))
      if (layer >= c.first && layer < c.first + c.layers) return true;
    return false;
  }

  // What the runtime's receive buffers hold beyond the stage's activations: one boundary tensor (a
  // micro-batch's tokens x the widest layer's hidden in the compute precision, 1 / T of it under sequence
  // parallelism) per buffer.
  double receive_buffer_bytes(int stage) const {
    if (!tmpl_.execution.runtime.pipeline_keeps_receive_buffers || stages_ <= 1) return 0;
    double hidden = 0;
    for (int l = 0; l < tmpl_.transformer->layers; ++l)
      hidden = std::max(hidden, layer_hidden_size(*tmpl_.transformer, l));
    double tensor = static_cast<double>(micro_batch_) * static_cast<double>(tmpl_.model.sequence_length) *
                    hidden * (tmpl_.training.precision == Precision::fp32 ? 4.0 : 2.0);
    if (tmpl_.mesh.tensor.sequence_parallel) tensor /= tmpl_.mesh.tensor.degree;
    return tensor *
           receive_buffers_beyond_activations(schedule_, stages_, virtual_stages_, stage, micro_batches_);
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
    s.mesh.pipeline = PipelineStage{stages_, stage, in_flight(stage), receive_buffer_bytes(stage)};
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
    request.product = request_.product;  // a framework's strategy (reproduce), else the product's space
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
  std::vector<int> longest_;  // each stage's longest length that fits (identical layers; empty: not known)
  bool bound_broken_ = false;
};

}  // namespace shardscope::pipeline_internal
