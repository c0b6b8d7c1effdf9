// Reproducing published rows: the fitted defaults' errors on the held-out rows, a fit that never reads a
// held-out row, the strategy each stated sharding maps to, and the fit's refusals.
#include "validate/fit/reproduce.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/core/scenario.hpp"
#include "planner/io/runtime_profiles.hpp"
#include "planner/io/text_file.hpp"
#include "validate/fit/published_fit.hpp"
#include "validate/fit/reproduce_report.hpp"

namespace shardscope::fit {
namespace {

const std::string kDir = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/published/";
const char* const kFiles[] = {"llm-foundry-h100.yaml",          "llm-foundry-h100-large.yaml",
                              "llm-foundry-a100.yaml",          "torchtitan-fsdp.yaml",
                              "torchtitan-fsdp-a100-2024.yaml", "llm-foundry-h100-fp8.yaml",
                              "torchtitan-2d-h100.yaml",        "torchtitan-cp-h100.yaml",
                              "torchtitan-3d-h100.yaml",        "torchtitan-4d-h100.yaml"};

Reproduction shipped(std::optional<RuntimeName> runtime = std::nullopt) {
  std::vector<SourceReproduction> sources;
  ReproduceOptions options;
  options.runtime = runtime;
  for (const char* f : kFiles) sources.push_back(reproduce_table(load_published_file(kDir + f), options));
  return make_reproduction(std::move(sources), "none");
}

// The claim docs/published.md makes: with the shipped profiles and presets (their free parameters fitted on
// the fit rows only), the held-out rows are predicted within 10 % on average, and better than the ideal
// executor predicts them.
TEST(Reproduce, HeldOutRowsOfEverySourceWithinTenPercentOnAverage) {
  const Reproduction framework = shipped();
  const Reproduction ideal = shipped(RuntimeName::ideal);
  std::printf("held-out MAPE: profiles %.1f %%, ideal %.1f %%\n", 100 * framework.held_out.mape,
              100 * ideal.held_out.mape);
  EXPECT_LE(framework.held_out.mape, 0.10);
  EXPECT_LT(framework.held_out.mape, ideal.held_out.mape / 2);
  EXPECT_GE(*framework.all.spearman, 0.9);
  for (const SourceReproduction& s : framework.sources) {
    EXPECT_GT(s.all.predicted, 0) << s.file;  // a file of one row has no held-out part (torchtitan-2d)
    if (s.held_out.rows > 0) {
      EXPECT_GT(s.held_out.predicted, 0) << s.file;
    }
  }
}

// ", pairs: N, pair_sd: X" of a published_errors line, or "" without pairs.
std::string pairs_text(const PairSpread& p) {
  if (p.pairs == 0) return "";
  char text[64];
  std::snprintf(text, sizeof text, ", pairs: %d, pair_sd: %.4f", p.pairs, p.sd);
  return text;
}

// ", memory_rows: N, memory_mape: X" of a published_errors line, or "" without a memory column.
std::string memory_text(int rows, double sum_abs) {
  if (rows == 0) return "";
  char text[64];
  std::snprintf(text, sizeof text, ", memory_rows: %d, memory_mape: %.4f", rows, sum_abs / rows);
  return text;
}

// Each runtime profile's published_errors (the basis of a plan's stated uncertainty) are this suite's
// held-out rows, per profile and GPU: recomputed here and compared, so the files' numbers are the suite's,
// not chosen. On a mismatch the lines to put in scenarios/runtimes/NAME.yaml are printed.
TEST(Reproduce, EachRuntimeProfilesPublishedErrorsAreTheSuitesHeldOutRows) {
  struct Group {
    int rows = 0;
    double sum_abs = 0, sum = 0, worst = 0, min_parameters = 1e300, max_parameters = 0;
    int min_gpus = 1 << 30, max_gpus = 0;
    std::map<std::string, std::vector<double>> log_errors;  // by source file: pairs only within one
    int memory_rows = 0;
    double memory_sum_abs = 0;
    PairSpread pairs() const {
      PairSpread all;
      for (const auto& [file, errors] : log_errors) all = merge_pair_spreads(all, pair_spread(errors));
      return all;
    }
  };
  std::map<std::string, std::map<std::string, Group>> by_runtime;  // runtime -> GPU -> held-out rows
  for (const std::optional<RuntimeName> runtime :
       {std::optional<RuntimeName>{}, std::optional{RuntimeName::ideal}}) {
    for (const char* f : kFiles) {
      const PublishedTable table = load_published_file(kDir + f);
      const PreparedTable prepared = prepare_table(table, runtime);
      for (const PreparedRow& row : prepared.rows) {
        if (row.row->part != PublishedPart::held_out) continue;
        const RowPrediction r = predict_prepared(row, Calibration{});
        if (!r.fits) continue;
        Group& g = by_runtime[prepared.runtime_profile][row.scenario.cluster.gpu.name];
        const double parameters = whole_model_parameters(row.scenario);
        ++g.rows;
        g.sum_abs += std::abs(r.error);
        g.sum += r.error;
        g.worst = std::max(g.worst, std::abs(r.error));
        g.min_parameters = std::min(g.min_parameters, parameters);
        g.max_parameters = std::max(g.max_parameters, parameters);
        g.min_gpus = std::min(g.min_gpus, r.gpus);
        g.max_gpus = std::max(g.max_gpus, r.gpus);
        g.log_errors[f].push_back(std::log1p(r.error));
        if (r.memory_error) {
          ++g.memory_rows;
          g.memory_sum_abs += std::abs(*r.memory_error);
        }
      }
    }
  }
  for (const RuntimeName name :
       {RuntimeName::ideal, RuntimeName::fsdp1, RuntimeName::fsdp2, RuntimeName::deepspeed}) {
    const std::map<std::string, Group>& groups = by_runtime[std::string(to_string(name))];
    const RuntimeProfile profile = runtime_profile(name);
    std::string expected = std::string(to_string(name)) + ": published_errors:\n";
    for (const auto& [gpu, g] : groups) {
      char line[400];
      std::snprintf(line, sizeof line,
                    "  %s: {rows: %d, mape: %.4f, bias: %.4f, worst: %.4f, min_parameters: %.4g, "
                    "max_parameters: %.4g, min_gpus: %d, max_gpus: %d%s%s}\n",
                    gpu.c_str(), g.rows, g.sum_abs / g.rows, g.sum / g.rows, g.worst, g.min_parameters,
                    g.max_parameters, g.min_gpus, g.max_gpus, pairs_text(g.pairs()).c_str(),
                    memory_text(g.memory_rows, g.memory_sum_abs).c_str());
      expected += line;
    }
    std::printf("%s", expected.c_str());
    EXPECT_EQ(profile.published_errors.size(), groups.size()) << expected;
    if (profile.published_errors.size() != groups.size()) continue;
    std::size_t i = 0;
    for (const auto& [gpu, g] : groups) {
      const PublishedError& e = profile.published_errors[i++];
      EXPECT_EQ(e.gpu, gpu) << expected;
      EXPECT_EQ(e.rows, g.rows) << expected;
      EXPECT_NEAR(e.mape, g.sum_abs / g.rows, 5e-5) << expected;
      EXPECT_NEAR(e.bias, g.sum / g.rows, 5e-5) << expected;
      EXPECT_NEAR(e.worst, g.worst, 5e-5) << expected;
      EXPECT_NEAR(e.min_parameters / g.min_parameters, 1, 1e-3) << expected;
      EXPECT_NEAR(e.max_parameters / g.max_parameters, 1, 1e-3) << expected;
      EXPECT_EQ(e.min_gpus, g.min_gpus) << expected;
      EXPECT_EQ(e.max_gpus, g.max_gpus) << expected;
      EXPECT_EQ(e.pairs, g.pairs().pairs) << expected;
      EXPECT_NEAR(e.pair_sd, g.pairs().sd, 5e-5) << expected;
      EXPECT_EQ(e.memory_rows, g.memory_rows) << expected;
      if (g.memory_rows > 0) {
        EXPECT_NEAR(e.memory_mape, g.memory_sum_abs / g.memory_rows, 5e-5) << expected;
      }
    }
  }
}

// llm-foundry's FP8 table (TransformerEngine, delayed scaling), on which nothing was fitted: every row
// within 11 %, in the measured order; priced with torchao's dynamic recipe (its casts in eager kernels) it
// comes out slower, and worse.
TEST(Reproduce, TransformerEngineFp8RowsCheckTheMeasuredFp8Rate) {
  PublishedTable table = load_published_file(kDir + "llm-foundry-h100-fp8.yaml");
  ASSERT_EQ(table.float8_recipe, "delayed");
  const SourceReproduction delayed = reproduce_table(table, {});
  for (const RowPrediction& r : delayed.rows) {
    ASSERT_TRUE(r.fits) << r.id;
    EXPECT_LE(std::abs(r.error), 0.11) << r.id;
  }
  EXPECT_EQ(*delayed.all.spearman, 1.0);
  table.float8_recipe = "dynamic";
  const SourceReproduction dynamic = reproduce_table(table, {});
  std::printf("FP8 rows: MAPE %.1f %% (delayed), %.1f %% (dynamic); bias %+.1f %%, %+.1f %%\n",
              100 * delayed.all.mape, 100 * dynamic.all.mape, 100 * delayed.all.bias, 100 * dynamic.all.bias);
  EXPECT_LT(dynamic.all.bias, delayed.all.bias);
  EXPECT_GT(dynamic.all.mape, delayed.all.mape);
}

TEST(Reproduce, SameInputsGiveByteIdenticalReports) {
  EXPECT_EQ(reproduction_json(shipped()).dump(), reproduction_json(shipped()).dump());
}

TEST(Reproduce, StatedShardingMapsToStrategies) {
  const PublishedTable t = load_published_file(kDir + "llm-foundry-h100.yaml");
  PublishedRow row = t.rows.front();
  for (const auto& [stated, strategy] :
       std::vector<std::pair<std::string, std::string>>{{"FULL_SHARD", "fsdp"},
                                                        {"full_shard", "fsdp"},
                                                        {"FSDP2 (1D parallelism)", "fsdp"},
                                                        {"SHARD_GRAD_OP", "zero-2"}}) {
    row.sharding_stated = stated;
    EXPECT_EQ(row_strategy(t, row), strategy) << stated;
  }
  // A mesh names each of the row's degrees above 1, as "TP 8" or "TP8"; "PP 16" does not name PP 1... 8.
  row.tensor_parallel = 8;
  row.pipeline_parallel = 8;
  for (const std::string stated : {"FSDP 8, TP 8, PP 8", "FSDP 2, CP 1 (TP 8, PP8)"})
    EXPECT_EQ((row.sharding_stated = stated, row_strategy(t, row)), "fsdp") << stated;
  for (const std::string stated :
       {"FSDP 8, TP 8", "FSDP 8, TP 8, PP 16", "FSDP 8, TP 8, PP 80", "TP 8, PP 8"}) {
    row.sharding_stated = stated;
    EXPECT_THROW(row_strategy(t, row), InputError) << stated;
  }
  row.tensor_parallel = row.pipeline_parallel = 1;
  row.sharding_stated = "HYBRID_SHARD";
  try {
    row_strategy(t, row);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sharding_stated: 'HYBRID_SHARD' names no strategy"),
              std::string::npos)
        << e.what();
  }
}

// The objective reads only `fit` rows: held-out rows measured ten times faster change nothing in the fit.
TEST(PublishedFit, NeverReadsHeldOutRows) {
  PublishedTable table = load_published_file(kDir + "llm-foundry-h100-large.yaml");
  PublishedFitOptions options;
  options.max_evaluations = 60;
  const PublishedFit a = fit_published({table}, options);
  for (PublishedRow& r : table.rows)
    if (r.part == PublishedPart::held_out) r.measured.tokens_per_second_per_gpu *= 10;
  const PublishedFit b = fit_published({table}, options);
  ASSERT_EQ(a.parameters.size(), b.parameters.size());
  for (std::size_t i = 0; i < a.parameters.size(); ++i)
    EXPECT_EQ(a.parameters[i].fitted, b.parameters[i].fitted) << a.parameters[i].name;
  EXPECT_EQ(a.after.front().fit.mape, b.after.front().fit.mape);
  EXPECT_NE(a.after.front().held_out.mape, b.after.front().held_out.mape);
}

TEST(PublishedFit, ReducesTheFitPartsError) {
  PublishedFitOptions options;
  options.max_evaluations = 80;
  const PublishedFit f = fit_published({load_published_file(kDir + "llm-foundry-h100-large.yaml")}, options);
  EXPECT_LE(f.after.front().fit.mape, f.before.front().fit.mape);
  EXPECT_EQ(f.runtime, "fsdp1");
  EXPECT_EQ(f.parameters.size(), 6u);
  EXPECT_EQ(*f.calibration.host_backward_seconds, 2 * *f.calibration.host_forward_seconds);
}

// One factor on the GPU's peak: the products' and attention's fractions move together, element-wise work
// and the host time stay. torchtitan's file carries the peak this fit found (its peak_source says how), so
// refitting it with that peak in place finds a factor of 1: the file's number is the fit's, not chosen.
TEST(PublishedFit, APeakFitMovesOnlyThePeakAndFindsTheTorchtitanFilesOwn) {
  PublishedFitOptions peak;
  peak.free = PublishedFreeParameters::peak;
  const PublishedFit titan = fit_published({load_published_file(kDir + "torchtitan-fsdp.yaml")}, peak);
  EXPECT_NEAR(titan.peak_factor, 1.0, 0.005);
  EXPECT_NEAR(titan.peak_flops_per_second, 838.7e12, 838.7e12 * 0.005);
  const PublishedTable a100_table = load_published_file(kDir + "torchtitan-fsdp-a100-2024.yaml");
  const PublishedFit a100 = fit_published({a100_table}, peak);
  ASSERT_EQ(a100.parameters.size(), 3u);
  for (const FittedParameter& p : a100.parameters)
    EXPECT_NEAR(p.fitted / p.start, a100.peak_factor, 1e-9) << p.name;
  EXPECT_NE(a100.peak_factor, 1.0);
  const PreparedTable prepared = prepare_table(a100_table);
  const ValidScenario& scenario = prepared.rows.front().scenario;
  EXPECT_NEAR(*a100.calibration.elementwise_fraction, scenario.cluster.gpu.kernels->elementwise_fraction,
              1e-12);
  EXPECT_NEAR(*a100.calibration.host_forward_seconds, scenario.execution.runtime.host_forward_seconds, 1e-15);
  EXPECT_LE(a100.after.front().fit.mape, a100.before.front().fit.mape);
}

// A memory column of allocated tensors is compared with the allocated peak, a reserved one with the reserved
// peak: the same torchtitan row, read as max_allocated, predicts over 2 GiB less (fsdp2's reserve and the
// gradients not yet made at the peak).
TEST(Reproduce, AnAllocatedMemoryColumnIsComparedWithTheAllocatedPeak) {
  PublishedTable table = load_published_file(kDir + "torchtitan-fsdp.yaml");
  const PreparedTable reserved = prepare_table(table);
  const RowPrediction as_reserved = predict_prepared(reserved.rows.front(), Calibration{});
  table.memory_meaning = "max_allocated";
  const PreparedTable allocated = prepare_table(table);
  ASSERT_TRUE(allocated.rows.front().allocated_memory);
  EXPECT_FALSE(reserved.rows.front().allocated_memory);
  const RowPrediction as_allocated = predict_prepared(allocated.rows.front(), Calibration{});
  EXPECT_GT(as_reserved.predicted_memory_gib - as_allocated.predicted_memory_gib, 2.0);
  EXPECT_EQ(as_reserved.predicted_tokens_per_second_per_gpu,
            as_allocated.predicted_tokens_per_second_per_gpu);
}

void expect_fit_error(const std::vector<PublishedTable>& tables, const PublishedFitOptions& options,
                      const std::string& expected) {
  try {
    fit_published(tables, options);
    ADD_FAILURE() << "no error, expected " << expected;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST(PublishedFit, RefusesWhatItCannotFit) {
  const PublishedTable h100 = load_published_file(kDir + "llm-foundry-h100-large.yaml");
  const PublishedTable a100 = load_published_file(kDir + "llm-foundry-a100.yaml");
  const PublishedTable titan = load_published_file(kDir + "torchtitan-fsdp.yaml");
  expect_fit_error({}, {}, "--published: expected at least one file");
  expect_fit_error({h100, a100}, {}, "llm-foundry-a100.yaml: cluster: GPU A100-SXM4-80GB, but");
  expect_fit_error({h100, titan}, {}, "torchtitan-fsdp.yaml: runtime_profile: 'fsdp2', but");
  PublishedFitOptions fsdp1;
  fsdp1.runtime = RuntimeName::fsdp1;
  expect_fit_error({h100, titan}, fsdp1, "torchtitan-fsdp.yaml: cluster: peak_fp16 838.7");
  PublishedFitOptions ideal;
  ideal.runtime = RuntimeName::ideal;
  expect_fit_error({h100}, ideal, "runtime ideal has no parameters to fit");
}

// Rows with pipeline stages: predicted by the pipeline search with FSDP2's stages (parameters and gradients
// whole), scored like any row; a schedule the row's batch cannot fill is an error naming the row, a stage
// short of memory a row that does not fit, with the search's reason.
TEST(Reproduce, PipelineRowsArePlannedStageByStageAndSayWhyNot) {
  const std::string path = kDir + "torchtitan-3d-h100.yaml";
  std::string text = read_text_file(path, "published measurements");
  const SourceReproduction shipped = reproduce_table(parse_published_string(text, path));
  ASSERT_EQ(shipped.rows.size(), 2u);
  for (const RowPrediction& r : shipped.rows) {
    ASSERT_TRUE(r.fits) << r.id << ": " << r.why_not;
    EXPECT_EQ(r.micro_batch, 4) << r.id;
    EXPECT_EQ(r.accumulation_steps, 8) << r.id;
    EXPECT_NE(r.strategy.find("fsdp, PP 8"), std::string::npos) << r.strategy;
    EXPECT_LT(std::abs(r.error), 0.10) << r.id;  // -2.7 % and -2.4 % (docs/published.md)
  }
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string out = text;
    for (std::size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
    return out;
  };
  try {
    reproduce_table(parse_published_string(
        replaced("global_batch_sequences: 256", "global_batch_sequences: 128"), "t.yaml"));
    ADD_FAILURE() << "4 micro-batches on 8 stages were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "rows.titan-t5-1f1b.pipeline_parallel");
    EXPECT_NE(e.message().find("fewer than the 8 stages 1f1b needs"), std::string::npos) << e.message();
  }
  const SourceReproduction small =
      reproduce_table(parse_published_string(replaced("gpu_memory: 96GB", "gpu_memory: 40GB"), "t.yaml"));
  for (const RowPrediction& r : small.rows) {
    EXPECT_FALSE(r.fits) << r.id;
    // "no cut ... fits ...; the even cut's stage 1 (16 layers) lacks 29.87 GiB", "stage 1 ... does not fit
    // ..."
    EXPECT_NE(r.why_not.find("fit"), std::string::npos) << r.why_not;
    EXPECT_NE(r.why_not.find("stage 1"), std::string::npos) << r.why_not;
    EXPECT_EQ(r.micro_batch, 4) << r.id;
  }
}

}  // namespace
}  // namespace shardscope::fit
