// Reproducing published measurements: each row's scenario planned with its framework's sharding at its own
// micro-batch, accumulation and checkpointing; errors, summaries and rank agreement.
#include "validate/fit/reproduce.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/runtime_profiles.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/pipeline_search.hpp"
#include "planner/search/planner.hpp"
#include "validate/fit/comparison.hpp"

namespace shardscope::fit {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::string row_strategy(const PublishedTable& table, const PublishedRow& row) {
  const std::string stated = upper(row.sharding_stated);
  if (stated == "FULL_SHARD" || stated == "FSDP" || stated.rfind("FSDP2", 0) == 0 || stated == "FSDP 8, CP 1")
    return "fsdp";
  if (stated == "SHARD_GRAD_OP") return "zero-2";
  // "FSDP 32, TP 8", "FSDP 4, CP 2", "FSDP 8, TP 8, PP 8", "FSDP 2, CP 4 (TP 8, PP8)": FSDP on the
  // data-parallel ranks of the row's mesh, each of the row's degrees above 1 named ("TP 8" or "TP8", not
  // followed by another digit).
  const auto names = [&](const std::string& axis, int degree) {
    if (degree == 1) return true;
    for (const std::string& form : {axis + " " + std::to_string(degree), axis + std::to_string(degree)}) {
      for (std::size_t at = stated.find(form); at != std::string::npos; at = stated.find(form, at + 1)) {
        const std::size_t end = at + form.size();
        if (end == stated.size() || !std::isdigit(static_cast<unsigned char>(stated[end]))) return true;
      }
    }
    return false;
  };
  const bool mesh = row.tensor_parallel > 1 || row.context_parallel > 1 || row.pipeline_parallel > 1;
  if (mesh && stated.rfind("FSDP ", 0) == 0 && names("TP", row.tensor_parallel) &&
      names("CP", row.context_parallel) && names("PP", row.pipeline_parallel))
    return "fsdp";
  throw InputError(
      table.file, row.line, "rows." + row.id + ".sharding_stated",
      "'" + row.sharding_stated +
          "' names no strategy shardscope reproduces (FULL_SHARD, FSDP, FSDP2, SHARD_GRAD_OP, or "
          "'FSDP N' with each of the row's tensor_parallel, context_parallel and pipeline_parallel "
          "above 1 named: 'TP T', 'CP C', 'PP P')");
}

ReproduceSummary summarize_rows(const std::vector<RowPrediction>& rows, std::optional<PublishedPart> part) {
  ReproduceSummary s;
  std::vector<double> predicted, measured, log_errors;
  double memory_sum = 0;
  int memory_rows = 0;
  for (const RowPrediction& r : rows) {
    if (part && r.part != *part) continue;
    ++s.rows;
    if (!r.fits) {
      ++s.not_fitting;
      continue;
    }
    ++s.predicted;
    const double magnitude = std::abs(r.error);
    s.mape += magnitude;
    s.bias += r.error;
    if (magnitude > 0.25) ++s.over_25_percent;
    if (s.worst_row.empty() || magnitude > s.worst_abs_error) {
      s.worst_abs_error = magnitude;
      s.worst_row = r.id;
    }
    predicted.push_back(r.predicted_tokens_per_second_per_gpu);
    measured.push_back(r.measured_tokens_per_second_per_gpu);
    log_errors.push_back(std::log1p(r.error));
    if (r.memory_error) {
      memory_sum += std::abs(*r.memory_error);
      ++memory_rows;
    }
    if (r.simulated_error) {
      ++s.simulated;
      s.simulator_mape += std::abs(*r.simulated_error);
      s.simulator_bias += *r.simulated_error;
    }
  }
  if (s.predicted > 0) {
    s.mape /= s.predicted;
    s.bias /= s.predicted;
  }
  if (s.simulated > 0) {
    s.simulator_mape /= s.simulated;
    s.simulator_bias /= s.simulated;
  }
  s.spearman = spearman(predicted, measured);
  s.pairs = pair_spread(log_errors);
  if (memory_rows > 0) s.memory_mape = memory_sum / memory_rows;
  return s;
}

namespace {

// A pipelined row's scenario without its stages, sliced for its mesh as the parser slices a fixed one: the
// row's cluster, GPU, runtime and model for calibrations and fits (its batch arithmetic is the stages').
Scenario unpipelined(Scenario scenario) {
  ParallelismRequest& p = scenario.parallelism;
  p.pipeline = 1;
  p.schedule = PipelineSchedule::one_f_one_b;
  p.virtual_stages = 1;
  scenario.training.global_batch = 0;
  const TensorSlice slice = p.slice();
  if (slice.whole()) return scenario;
  return slice_scenario(scenario, slice);
}

}  // namespace

PreparedTable prepare_table(const PublishedTable& table, std::optional<RuntimeName> runtime) {
  PreparedTable out{&table, runtime ? to_string(*runtime) : table.runtime_profile, {}};
  out.rows.reserve(table.rows.size());
  for (const PublishedRow& row : table.rows) {
    Scenario parsed = parse_scenario_string(published_scenario_text(table, row), table.file + ":" + row.id);
    if (runtime) {
      // Another framework's profile prices a row's torch.compile and Float8 only where it can (ideal prices
      // no kernels; deepspeed has no compiled mode): without them otherwise, as the row's text says.
      parsed.execution.runtime = runtime_profile(*runtime);
      KernelOptions& options = parsed.execution.kernel_options;
      if (!parsed.execution.runtime.kernel_pricing()) options = {};
      if (!parsed.execution.runtime.compiles()) options.compile = false;
    }
    const bool allocated = table.memory_meaning == "max_allocated" || table.memory_meaning == "max_active";
    std::shared_ptr<const Scenario> pipelined;
    if (parsed.parallelism.pipelined()) {
      pipelined = std::make_shared<const Scenario>(parsed);
      parsed = unpipelined(std::move(parsed));
    }
    out.rows.push_back(PreparedRow{&row, row_strategy(table, row), ValidScenario(std::move(parsed)),
                                   allocated, std::move(pipelined), table.file});
  }
  return out;
}

namespace {

// A row with pipeline stages: the pipeline search at the row's stages, mesh and micro-batch, every stage
// planned in the row's strategy (under the runtime's pipeline behaviour); the slowest stage's peak.
void predict_pipeline(const PreparedRow& prepared, const Calibration& calibration,
                      const RowSimulate& simulate, RowPrediction& p) {
  const Scenario& whole = *prepared.pipelined;
  PlanRequest request;
  request.with_baselines = false;
  request.product = space_by_name(p.strategy, whole.training);
  request.search.threads = 1;
  const PipelineSearch search = search_pipelines(whole, calibration, request);
  const PipelineOption& o = search.options.at(search.best);
  if (!o.fits && o.stage_plans_made == 0) {  // not a memory limit: the row's schedule cannot be built
    const PublishedRow& row = *prepared.row;
    throw InputError(prepared.file, row.line, "rows." + row.id + ".pipeline_parallel",
                     pipeline_text(search, o) + ": " + o.why_not);
  }
  const std::string text = pipeline_text(search, o);  // "PP 8 (1f1b) x TP 8 + SP x DP 8 (512 GPUs)"
  p.strategy += ", " + text.substr(0, text.find(" x "));
  p.fits = o.fits;
  if (!o.fits) {
    p.why_not = o.why_not;
    return;
  }
  p.micro_batch = o.micro_batch;  // the row's, or the one the search chose where the row gives none
  p.accumulation_steps = o.micro_batches;
  p.predicted_tokens_per_second_per_gpu = o.tokens_per_second / prepared.row->gpus;
  p.error = p.predicted_tokens_per_second_per_gpu / p.measured_tokens_per_second_per_gpu - 1;
  double allocated = 0;
  for (const PipelineStagePlan& stage : o.stage_plans)
    allocated = std::max(allocated, stage.plan.allocated_peak_bytes);
  p.predicted_memory_gib = (prepared.allocated_memory ? allocated : o.peak_bytes) / kGiB;
  if (p.measured_memory_gib) p.memory_error = p.predicted_memory_gib / *p.measured_memory_gib - 1;
  if (!simulate || !simulate.pipeline) return;
  if (const std::optional<double> seconds = simulate.pipeline(whole, search, o, calibration)) {
    p.simulated_tokens_per_second_per_gpu =
        o.tokens_per_second * o.iteration_seconds / *seconds / prepared.row->gpus;
    p.simulated_error = *p.simulated_tokens_per_second_per_gpu / p.measured_tokens_per_second_per_gpu - 1;
  }
}

}  // namespace

RowPrediction predict_prepared(const PreparedRow& prepared, const Calibration& calibration,
                               const RowSimulate& simulate) {
  const PublishedRow& row = *prepared.row;
  const ValidScenario& scenario = prepared.scenario;
  RowPrediction p;
  p.id = row.id;
  p.part = row.part;
  p.model = row.model;
  p.gpus = row.gpus;
  p.strategy = prepared.strategy;
  p.measured_tokens_per_second_per_gpu = row.measured.tokens_per_second_per_gpu;
  p.measured_memory_gib = row.measured.memory_gib;
  p.micro_batch = scenario.training.micro_batch;
  p.accumulation_steps = scenario.training.gradient_accumulation_steps;
  p.checkpointing = to_string(scenario.training.checkpointing);
  if (prepared.pipelined) {
    predict_pipeline(prepared, calibration, simulate, p);
    return p;
  }
  const StrategyResult result =
      plan_strategy(scenario, calibration, space_by_name(p.strategy, scenario.training), {nullptr, 1});
  p.fits = result.fits;
  if (!result.fits) {
    p.shortfall_gib = result.shortfall_bytes / kGiB;
    return p;
  }
  const PlanPrediction& predicted = result.plan.predicted;
  p.predicted_tokens_per_second_per_gpu = predicted.tokens_per_second / row.gpus;
  p.error = p.predicted_tokens_per_second_per_gpu / p.measured_tokens_per_second_per_gpu - 1;
  p.predicted_memory_gib =
      (prepared.allocated_memory ? result.allocated_peak_bytes : predicted.peak_memory_bytes) / kGiB;
  if (p.measured_memory_gib) p.memory_error = p.predicted_memory_gib / *p.measured_memory_gib - 1;
  if (!simulate) return p;
  if (const std::optional<double> seconds = simulate.plan(scenario, calibration, result.plan)) {
    const double tokens = static_cast<double>(p.micro_batch) * p.accumulation_steps *
                          static_cast<double>(scenario.model.sequence_length);
    p.simulated_tokens_per_second_per_gpu = tokens / *seconds;
    p.simulated_error = *p.simulated_tokens_per_second_per_gpu / p.measured_tokens_per_second_per_gpu - 1;
  }
  return p;
}

SourceReproduction reproduce_prepared(const PreparedTable& table,
                                      const std::vector<Calibration>& calibrations,
                                      const RowSimulate& simulate) {
  SourceReproduction out;
  out.file = table.table->file;
  out.source = table.table->source.name + ", " + table.table->source.table;
  out.runtime_profile = table.runtime_profile;
  out.memory_meaning = table.table->memory_meaning;
  out.simulated = static_cast<bool>(simulate);
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    out.rows.push_back(predict_prepared(table.rows[i], calibrations[i], simulate));
  out.fit = summarize_rows(out.rows, PublishedPart::fit);
  out.held_out = summarize_rows(out.rows, PublishedPart::held_out);
  out.all = summarize_rows(out.rows, std::nullopt);
  return out;
}

SourceReproduction reproduce_table(const PublishedTable& table, const ReproduceOptions& options) {
  const PreparedTable prepared = prepare_table(table, options.runtime);
  std::vector<Calibration> calibrations;
  for (const PreparedRow& row : prepared.rows) {
    calibrations.push_back(
        options.calibration_text.empty()
            ? Calibration{}
            : parse_calibration_string(options.calibration_text, options.calibration_file, row.scenario));
  }
  return reproduce_prepared(prepared, calibrations, options.simulate);
}

}  // namespace shardscope::fit
