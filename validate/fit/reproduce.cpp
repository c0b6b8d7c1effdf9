// Reproducing published measurements: each row's scenario planned with its framework's sharding at its own
// micro-batch, accumulation and checkpointing; errors, summaries and rank agreement.
#include "validate/fit/reproduce.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/runtime_profiles.hpp"
#include "planner/io/scenario_parser.hpp"
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
  // "FSDP 32, TP 8", "FSDP 4, CP 2": FSDP on the data-parallel ranks of the row's mesh.
  if (row.tensor_parallel > 1 && stated.rfind("FSDP ", 0) == 0 &&
      stated.find(", TP " + std::to_string(row.tensor_parallel)) != std::string::npos)
    return "fsdp";
  if (row.context_parallel > 1 && stated.rfind("FSDP ", 0) == 0 &&
      stated.find(", CP " + std::to_string(row.context_parallel)) != std::string::npos)
    return "fsdp";
  throw InputError(
      table.file, row.line, "rows." + row.id + ".sharding_stated",
      "'" + row.sharding_stated +
          "' names no strategy shardscope reproduces (FULL_SHARD, FSDP, FSDP2, SHARD_GRAD_OP, or "
          "'FSDP N, TP T' / 'FSDP N, CP C' with the row's tensor_parallel / context_parallel)");
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
    out.rows.push_back(
        PreparedRow{&row, row_strategy(table, row), ValidScenario(std::move(parsed)), allocated});
  }
  return out;
}

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
  if (const std::optional<double> seconds = simulate(scenario, calibration, result.plan)) {
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
