// The published-measurements files (validate/published/): every shipped file parses with the pinned row
// counts, every error path names file:line: field, and every row becomes a scenario the planner reads with
// the row's GPU count and model shape.
#include "validate/fit/published.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/io/scenario_parser.hpp"

namespace shardscope::fit {
namespace {

const std::string kDir = std::string(SHARDSCOPE_SOURCE_DIR) + "/validate/published/";

struct Shipped {
  const char* file;
  int rows;
  int fit_rows;
};

const Shipped kShipped[] = {{"llm-foundry-h100.yaml", 52, 26},        {"llm-foundry-h100-large.yaml", 18, 9},
                            {"llm-foundry-a100.yaml", 61, 31},        {"torchtitan-fsdp.yaml", 7, 4},
                            {"torchtitan-fsdp-a100-2024.yaml", 3, 2}, {"llm-foundry-h100-fp8.yaml", 7, 4},
                            {"torchtitan-2d-h100.yaml", 1, 1},        {"torchtitan-cp-h100.yaml", 3, 2},
                            {"torchtitan-3d-h100.yaml", 2, 1},        {"torchtitan-4d-h100.yaml", 4, 2}};

// Parameters of the shape by the usual count (biases, norms with bias for layernorm, learned positions of
// the sequence length, an untied output), independent of shardscope's model generator.
double expected_parameters(const PublishedModel& m, std::int64_t sequence) {
  const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn_hidden_resolved());
  const double kv = (m.kv_heads > 0 ? m.kv_heads : m.heads) * (h / m.heads);
  double layer = h * (h + 2 * kv) + h * h;  // qkv and output
  if (m.attention_bias) layer += h + 2 * kv + h;
  layer += (m.mlp == "gated" ? 3 : 2) * h * f;
  if (m.mlp_bias) layer += f + h;
  const double norm = m.norm == "layernorm" ? 2 * h : h;
  layer += 2 * norm;
  double total = m.layers * layer + norm + static_cast<double>(m.vocab) * h;
  if (!m.tied_embeddings) total += static_cast<double>(m.vocab) * h;
  if (m.positions == "learned") total += static_cast<double>(sequence) * h;
  return total;
}

TEST(Published, ShippedFilesParseWithPinnedRowCounts) {
  for (const Shipped& s : kShipped) {
    const PublishedTable t = load_published_file(kDir + s.file);
    EXPECT_EQ(static_cast<int>(t.rows.size()), s.rows) << s.file;
    int fit = 0;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      const PublishedRow& r = t.rows[i];
      fit += r.part == PublishedPart::fit ? 1 : 0;
      // The parts alternate in table order, starting with fit.
      EXPECT_EQ(r.part, i % 2 == 0 ? PublishedPart::fit : PublishedPart::held_out) << s.file << " " << r.id;
      // The tables list each model's rows together: a model seen before must be the previous row's.
      if (i > 0 && r.model != t.rows[i - 1].model) {
        for (std::size_t j = 0; j + 1 < i; ++j) EXPECT_NE(t.rows[j].model, r.model) << s.file << " " << r.id;
      }
    }
    EXPECT_EQ(fit, s.fit_rows) << s.file;
    EXPECT_EQ(t.source.commit.size(), 40u) << s.file;
  }
}

TEST(Published, BothPartsSpanEveryModelWithTwoRowsOrMore) {
  for (const Shipped& s : kShipped) {
    const PublishedTable t = load_published_file(kDir + s.file);
    for (const PublishedModel& m : t.models) {
      int fit = 0, held = 0;
      for (const PublishedRow& r : t.rows) {
        if (r.model != m.name) continue;
        (r.part == PublishedPart::fit ? fit : held) += 1;
      }
      EXPECT_GE(fit, 1) << s.file << " " << m.name;
      if (fit + held >= 2) {
        EXPECT_GE(held, 1) << s.file << " " << m.name;
      }
      EXPECT_LE(std::abs(fit - held), 1) << s.file << " " << m.name;
    }
  }
}

TEST(Published, EveryRowBecomesAScenarioWithItsGpusAndShape) {
  for (const Shipped& s : kShipped) {
    const PublishedTable t = load_published_file(kDir + s.file);
    for (const PublishedRow& r : t.rows) {
      const std::string text = published_scenario_text(t, r);
      if (&r == &t.rows.back()) std::printf("%s, last row's scenario:\n%s\n", s.file, text.c_str());
      Scenario scenario;
      try {
        scenario = parse_scenario_string(text, r.id + ".yaml");
      } catch (const InputError& e) {
        FAIL() << s.file << " " << r.id << ": " << e.what() << "\n" << text;
      }
      EXPECT_EQ(physical_gpus(scenario), r.gpus) << r.id;
      EXPECT_EQ(scenario.parallelism.pipeline, r.pipeline_parallel) << r.id;
      // A pipelined scenario is sliced stage by stage by the pipeline search, not at parse.
      if (r.pipeline_parallel > 1) {
        EXPECT_EQ(scenario.parallelism.tensor, r.tensor_parallel) << r.id;
        EXPECT_EQ(scenario.mesh.tensor.degree, 1) << r.id;
        scenario = slice_scenario(scenario, TensorSlice{r.tensor_parallel, r.sequence_parallel, 1});
      }
      EXPECT_EQ(scenario.mesh.tensor.degree, r.tensor_parallel) << r.id;
      ASSERT_TRUE(row_sequence_tokens(r).has_value()) << r.id;
      // Under context parallelism a sample is one chunk of the row's sequence.
      EXPECT_EQ(scenario.model.sequence_length * scenario.mesh.tensor.context, *row_sequence_tokens(r))
          << r.id;
      if (r.micro_batch_per_gpu) {
        EXPECT_EQ(scenario.training.micro_batch, *r.micro_batch_per_gpu) << r.id;
      }
      const PublishedModel& m = t.model_of(r);
      const double expected = expected_parameters(m, *row_sequence_tokens(r));
      const double got = whole_model_parameters(scenario);
      EXPECT_NEAR(got / expected, 1.0, 1e-3)
          << r.id << ": shardscope counts " << got << ", expected " << expected;
      if (r.parameters_stated) {  // the source's own count of the same shape
        EXPECT_NEAR(expected / static_cast<double>(*r.parameters_stated), 1.0, 1e-9) << r.id;
      }
    }
  }
}

// A minimal valid file; each error test changes one line of it.
const std::string kValid = R"(source:
  name: test source
  url: https://example.org/table
  commit: 0123456789012345678901234567890123456789
  table: "T1"
framework: test
runtime_profile: fsdp1
precision: mixed-bf16
cross_entropy:
  kind: fused
  source: here
cluster:
  gpu: h100
  gpus_per_node: unknown
  interconnect: unknown
  shardscope:
    preset: dgx-h100
memory_meaning: max_reserved
models:
  tiny:
    shape_from: here
    layers: 2
    hidden: 64
    heads: 4
    expansion_ratio: 4
    vocab: 100
rows:
  - id: r1
    part: fit
    model: tiny
    sequence_tokens: 128
    gpus: 8
    micro_batch_per_gpu: 2
    gradient_accumulation_steps: 3
    global_batch_sequences: 48
    activation_checkpointing: none
    activation_checkpointing_stated: "False"
    sharding_stated: FULL_SHARD
    precision_stated: bf16
    torch_compile: unknown
    float8: false
    flash_attention: true
    measured:
      tokens_per_second_per_gpu: 1000
      memory_gib: 10.5
)";

std::string replaced(const std::string& from, const std::string& to) {
  std::string text = kValid;
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

void expect_error(const std::string& text, const std::string& where) {
  try {
    parse_published_string(text, "t.yaml");
    ADD_FAILURE() << "no error; expected " << where;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
  }
}

TEST(Published, MinimalFileParses) {
  const PublishedTable t = parse_published_string(kValid, "t.yaml");
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(t.rows[0].line, 28);
  EXPECT_EQ(t.models[0].ffn_hidden_resolved(), 256);
  EXPECT_EQ(t.rows[0].torch_compile, Tristate::unknown);
  EXPECT_FALSE(t.cluster.gpus_per_node.has_value());
}

TEST(Published, UnknownKeyNamesFileLineField) {
  expect_error(replaced("    float8: false\n", "    float8: false\n    fp8: true\n"),
               "t.yaml:42: rows[0].fp8:");
  expect_error(replaced("framework: test\n", "framework: test\nframwork: x\n"), "t.yaml:7: framwork:");
  expect_error(replaced("    vocab: 100\n", "    vocab: 100\n    vocab_size: 100\n"),
               "t.yaml:27: models.tiny.vocab_size:");
  expect_error(replaced("      memory_gib: 10.5\n", "      memory_gb: 10.5\n"),
               "t.yaml:45: rows[0].measured.memory_gb:");
}

TEST(Published, WrongTypeNamesFileLineField) {
  expect_error(replaced("    gpus: 8\n", "    gpus: eight\n"), "t.yaml:32: rows[0].gpus:");
  expect_error(replaced("    float8: false\n", "    float8: maybe\n"), "t.yaml:41: rows[0].float8:");
  expect_error(replaced("    layers: 2\n", "    layers: [2]\n"), "t.yaml:22: models.tiny.layers:");
  expect_error(replaced("      tokens_per_second_per_gpu: 1000\n", "      tokens_per_second_per_gpu: fast\n"),
               "t.yaml:44: rows[0].measured.tokens_per_second_per_gpu:");
  expect_error(replaced("runtime_profile: fsdp1\n", "runtime_profile: zero3\n"),
               "t.yaml:7: runtime_profile:");
  expect_error(replaced("  kind: fused\n", "  kind: chunked\n"), "t.yaml:10: cross_entropy.kind:");
  expect_error(replaced("    part: fit\n", "    part: train\n"), "t.yaml:29: rows[0].part:");
}

TEST(Published, MissingRequiredFieldNamesFileLineField) {
  expect_error(replaced("  source: here\n", ""), "cross_entropy.source: missing");
  expect_error(replaced("    gpus: 8\n", ""), "rows[0].gpus: missing");
  expect_error(replaced("    torch_compile: unknown\n", ""), "rows[0].torch_compile: missing");
  expect_error(replaced("    sequence_tokens: 128\n", ""), "rows[0].sequence_tokens: missing");
  expect_error(replaced("      tokens_per_second_per_gpu: 1000\n", ""),
               "rows[0].measured.tokens_per_second_per_gpu: missing");
  expect_error(replaced("  commit: 0123456789012345678901234567890123456789\n", ""),
               "source.commit: missing");
  // The line of a missing field is that of its mapping.
  expect_error(replaced("    gpus: 8\n", ""), "t.yaml:28: rows[0].gpus:");
}

TEST(Published, ZeroOrNegativeNamesFileLineField) {
  expect_error(replaced("    gpus: 8\n", "    gpus: 0\n"), "t.yaml:32: rows[0].gpus:");
  expect_error(replaced("    micro_batch_per_gpu: 2\n", "    micro_batch_per_gpu: -2\n"),
               "t.yaml:33: rows[0].micro_batch_per_gpu:");
  expect_error(replaced("      tokens_per_second_per_gpu: 1000\n", "      tokens_per_second_per_gpu: 0\n"),
               "t.yaml:44: rows[0].measured.tokens_per_second_per_gpu:");
  expect_error(replaced("      memory_gib: 10.5\n", "      memory_gib: -1\n"),
               "t.yaml:45: rows[0].measured.memory_gib:");
  expect_error(replaced("    hidden: 64\n", "    hidden: 0\n"), "t.yaml:23: models.tiny.hidden:");
  expect_error(replaced("    expansion_ratio: 4\n", "    expansion_ratio: 0\n"),
               "t.yaml:25: models.tiny.expansion_ratio:");
}

TEST(Published, ChecksAcrossFields) {
  expect_error(replaced("    global_batch_sequences: 48\n", "    global_batch_sequences: 50\n"),
               "t.yaml:35: rows[0].global_batch_sequences: is not micro_batch_per_gpu");
  expect_error(replaced("    model: tiny\n", "    model: huge\n"), "t.yaml:30: rows[0].model:");
  expect_error(replaced("  - id: r1\n", "  - id: \"r 1: x\"\n"), "t.yaml:28: rows[0].id:");
  expect_error(replaced("    preset: dgx-h100\n", "    preset: dgx-h900\n"),
               "t.yaml:17: cluster.shardscope.preset:");
  expect_error(replaced("memory_meaning: max_reserved\n", "memory_meaning: none\n"),
               "rows[0].measured.memory_gib: the header's memory_meaning is none");
  expect_error(replaced("    flash_attention: true\n",
                        "    flash_attention: true\n    assumed:\n      sequence_tokens: "
                        "64\n      source: a config\n"),
               "rows[0].assumed.sequence_tokens: the row states it");
  const std::string twice = kValid + R"(  - id: r1
    part: held_out
    model: tiny
    sequence_tokens: 128
    gpus: 8
    micro_batch_per_gpu: 2
    gradient_accumulation_steps: unknown
    activation_checkpointing: full
    activation_checkpointing_stated: "True"
    sharding_stated: FULL_SHARD
    precision_stated: bf16
    torch_compile: false
    float8: false
    flash_attention: true
    measured:
      tokens_per_second_per_gpu: 900
)";
  expect_error(twice, "t.yaml:46: rows[1].id: 'r1' is given twice");
}

// A tensor-parallel row: the degree divides its GPUs, sequence parallelism needs it, the batch arithmetic
// counts data-parallel ranks, and the row's scenario slices the model and the cluster as the row ran.
TEST(Published, TensorParallelRowsCountDataParallelRanks) {
  const std::string tp2 =
      replaced("    gpus: 8\n", "    gpus: 8\n    tensor_parallel: 2\n    sequence_parallel: true\n");
  expect_error(tp2,
               "t.yaml:37: rows[0].global_batch_sequences: is not micro_batch_per_gpu x "
               "gradient_accumulation_steps x gpus / (tensor_parallel x context_parallel x "
               "pipeline_parallel) (24)");
  expect_error(replaced("    gpus: 8\n", "    gpus: 8\n    context_parallel: 2\n"),
               "rows[0].global_batch_sequences: is not micro_batch_per_gpu");
  expect_error(replaced("    gpus: 8\n", "    gpus: 8\n    tensor_parallel: 4\n    context_parallel: 4\n"),
               "rows[0].context_parallel: times tensor_parallel does not divide the row's 8 GPUs");
  const std::string fits = replaced(
      "    gpus: 8\n    micro_batch_per_gpu: 2\n    gradient_accumulation_steps: 3\n"
      "    global_batch_sequences: 48\n",
      "    gpus: 8\n    tensor_parallel: 2\n    sequence_parallel: true\n"
      "    micro_batch_per_gpu: 2\n    gradient_accumulation_steps: 3\n"
      "    global_batch_sequences: 24\n");
  const PublishedTable t = parse_published_string(fits, "t.yaml");
  EXPECT_EQ(t.rows[0].tensor_parallel, 2);
  EXPECT_TRUE(t.rows[0].sequence_parallel);
  EXPECT_NE(
      published_scenario_text(t, t.rows[0]).find("parallelism:\n  tensor: 2\n  sequence_parallel: true"),
      std::string::npos);
  expect_error(replaced("    gpus: 8\n", "    gpus: 8\n    tensor_parallel: 3\n"),
               "t.yaml:33: rows[0].tensor_parallel: does not divide the row's 8 GPUs");
  expect_error(replaced("    gpus: 8\n", "    gpus: 8\n    sequence_parallel: true\n"),
               "t.yaml:33: rows[0].sequence_parallel: needs tensor_parallel above 1");
  expect_error(replaced("    gpus: 8\n", "    gpus: 8\n    tensor_parallel: 0\n"),
               "rows[0].tensor_parallel:");
}

TEST(Published, PipelineRowsCountStagesAndNameTheirSchedule) {
  const std::string base =
      "    gpus: 8\n    micro_batch_per_gpu: 2\n    gradient_accumulation_steps: 3\n"
      "    global_batch_sequences: 48\n";
  const auto piped = [&](const std::string& pipeline, const std::string& batch = "48") {
    return replaced(base, "    gpus: 8\n" + pipeline +
                              "    micro_batch_per_gpu: 2\n    gradient_accumulation_steps: 3\n"
                              "    global_batch_sequences: " +
                              batch + "\n");
  };
  const PublishedTable t = parse_published_string(
      piped("    pipeline_parallel: 2\n    pipeline_schedule: interleaved\n    virtual_stages: 2\n", "24"),
      "t.yaml");
  EXPECT_EQ(t.rows[0].pipeline_parallel, 2);
  EXPECT_EQ(data_parallel_ranks(t.rows[0]), 4);
  EXPECT_NE(published_scenario_text(t, t.rows[0])
                .find("  pipeline: 2\n  pipeline_schedule: interleaved\n  virtual_stages: 2\n"),
            std::string::npos);
  // Each bad pipeline, with the global batch its stages would need (48 without, 24 with 2 stages).
  const struct {
    const char* fields;
    const char* batch;
    const char* error;
  } bad[] = {
      {"    pipeline_parallel: 2\n    pipeline_schedule: 1f1b\n", "48",
       "rows[0].global_batch_sequences: is not micro_batch_per_gpu"},
      {"    pipeline_parallel: 2\n", "24", "rows[0].pipeline_schedule:"},
      {"    pipeline_parallel: 2\n    pipeline_schedule: zigzag\n", "24", "rows[0].pipeline_schedule:"},
      {"    pipeline_parallel: 2\n    pipeline_schedule: interleaved\n", "24",
       "rows[0].virtual_stages: the interleaved schedule needs at least 2"},
      {"    pipeline_parallel: 2\n    pipeline_schedule: 1f1b\n    virtual_stages: 2\n", "24",
       "rows[0].virtual_stages: only the interleaved schedule"},
      {"    pipeline_schedule: 1f1b\n", "48", "rows[0].pipeline_schedule: needs pipeline_parallel above 1"},
      {"    virtual_stages: 2\n", "48", "rows[0].virtual_stages: needs pipeline_parallel above 1"},
      {"    tensor_parallel: 2\n    pipeline_parallel: 8\n    pipeline_schedule: 1f1b\n", "48",
       "rows[0].pipeline_parallel: times tensor_parallel and context_parallel does not divide"},
  };
  for (const auto& b : bad) expect_error(piped(b.fields, b.batch), b.error);
  // A stated micro-batch may not be assumed too; an unknown one may, from the source's defaults.
  const std::string assumed = replaced("    measured:\n",
                                       "    assumed:\n      micro_batch_per_gpu: 1\n"
                                       "      source: a default\n    measured:\n");
  expect_error(assumed, "rows[0].assumed.micro_batch_per_gpu: the row states it");
}

// A card's peak other than the preset's is written into each row's scenario and needs its source.
TEST(Published, APeakOverrideNeedsItsSourceAndReachesTheScenario) {
  const std::string peak = "    preset: dgx-h100\n    peak_fp16: 838.7TFLOPS\n";
  const PublishedTable t =
      parse_published_string(replaced("    preset: dgx-h100\n", peak + "    peak_source: a fit\n"), "t.yaml");
  EXPECT_EQ(t.cluster.peak_fp16, "838.7TFLOPS");
  EXPECT_EQ(t.cluster.peak_source, "a fit");
  const Scenario scenario = parse_scenario_string(published_scenario_text(t, t.rows[0]), "r1.yaml");
  EXPECT_DOUBLE_EQ(scenario.cluster.gpu.peak_flops_per_second_fp16, 838.7e12);
  expect_error(replaced("    preset: dgx-h100\n", peak),
               "t.yaml:18: cluster.shardscope.peak_fp16: a peak other than the preset's needs peak_source");
  expect_error(replaced("    preset: dgx-h100\n", "    preset: dgx-h100\n    peak_source: a fit\n"),
               "t.yaml:18: cluster.shardscope.peak_source: names the source of peak_fp16");
  expect_error(replaced("    preset: dgx-h100\n", "    preset: dgx-h100\n    peak_fp16: fast\n"),
               "t.yaml:18: cluster.shardscope.peak_fp16:");
}

// torchtitan's op policy is priced as `checkpointing: selective`; a selective row of no stated kind is
// searched; the kind may be assumed only where the row leaves it open.
TEST(Published, SelectiveOpBecomesSelectiveCheckpointingAndOnlyThatMayBeAssumed) {
  const std::string op =
      replaced("    activation_checkpointing: none\n", "    activation_checkpointing: selective-op\n");
  PublishedTable t = parse_published_string(op, "t.yaml");
  EXPECT_EQ(t.rows[0].checkpointing, PublishedCheckpointing::selective_op);
  EXPECT_NE(published_scenario_text(t, t.rows[0]).find("  checkpointing: selective\n"), std::string::npos);
  const std::string open =
      replaced("    activation_checkpointing: none\n", "    activation_checkpointing: selective\n");
  t = parse_published_string(open, "t.yaml");
  EXPECT_NE(published_scenario_text(t, t.rows[0]).find("  checkpointing: search\n"), std::string::npos);
  const std::string assumed =
      "    assumed:\n      activation_checkpointing: selective-op\n      source: config\n";
  std::string text = open;
  text.insert(text.find("    measured:\n"), assumed);
  t = parse_published_string(text, "t.yaml");
  EXPECT_EQ(t.rows[0].checkpointing, PublishedCheckpointing::selective_op);
  text = kValid;
  text.insert(text.find("    measured:\n"), assumed);
  expect_error(text, "t.yaml:44: rows[0].assumed.activation_checkpointing: the row states its policy");
  text = open;
  text.insert(text.find("    measured:\n"),
              "    assumed:\n      activation_checkpointing: full\n      source: config\n");
  expect_error(text, "rows[0].assumed.activation_checkpointing: expected selective-op or selective-layer");
}

// torchtitan's layer option becomes `checkpointing: layers` with its step, stated or assumed; without a
// step the row cannot become a scenario.
TEST(Published, SelectiveLayerBecomesLayerCheckpointingWithItsStep) {
  std::string text =
      replaced("    activation_checkpointing: none\n", "    activation_checkpointing: selective-layer\n");
  PublishedTable t = parse_published_string(text, "t.yaml");
  try {
    published_scenario_text(t, t.rows[0]);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rows.r1.activation_checkpointing_every"), std::string::npos)
        << e.what();
  }
  text.insert(text.find("    measured:\n"),
              "    assumed:\n      activation_checkpointing_every: 3\n      source: config\n");
  t = parse_published_string(text, "t.yaml");
  EXPECT_NE(published_scenario_text(t, t.rows[0]).find("  checkpointing: layers\n  checkpoint_every: 3\n"),
            std::string::npos);
  std::string stated =
      replaced("    activation_checkpointing: none\n",
               "    activation_checkpointing: selective-layer\n    activation_checkpointing_every: 2\n");
  stated.insert(stated.find("    measured:\n"),
                "    assumed:\n      activation_checkpointing_every: 3\n      source: config\n");
  expect_error(stated, "rows[0].assumed.activation_checkpointing_every: the row states it");
}

// A row that ran float8 needs the file's recipe (dynamic or delayed), which its scenario then runs; the
// recipe is checked like every other field.
TEST(Published, FloatEightRowsNeedTheFilesRecipeAndRunIt) {
  expect_error(replaced("    float8: false\n", "    float8: true\n"),
               "t.yaml:41: rows[0].float8: true, and the file names no float8_recipe");
  const std::string recipe =
      "cross_entropy:\n  kind: fused\n  source: here\nfloat8_recipe:\n  kind: delayed\n"
      "  source: there\n";
  const std::string with = replaced("cross_entropy:\n  kind: fused\n  source: here\n", recipe);
  const std::string fp8 = with.substr(0, with.find("    float8: false\n")) + "    float8: true\n" +
                          with.substr(with.find("    float8: false\n") + 18);
  const PublishedTable t = parse_published_string(fp8, "t.yaml");
  EXPECT_EQ(t.float8_recipe, "delayed");
  EXPECT_NE(published_scenario_text(t, t.rows[0]).find("  float8: delayed\n"), std::string::npos);
  std::string wrong = fp8;
  wrong.replace(wrong.find("  kind: delayed\n"), 16, "  kind: rowwise\n");
  expect_error(wrong, "t.yaml:13: float8_recipe.kind:");
  std::string unsourced = fp8;
  unsourced.replace(unsourced.find("  source: there\n"), 16, "");
  expect_error(unsourced, "float8_recipe.source: missing");
}

// A file may say how its framework reduces gradients; its scenarios then reduce so.
TEST(Published, ReduceDtypeIsReadWithItsSourceAndWrittenToEveryRow) {
  const std::string with = replaced("cluster:\n", "reduce_dtype:\n  kind: fp32\n  source: there\ncluster:\n");
  const PublishedTable t = parse_published_string(with, "t.yaml");
  EXPECT_EQ(t.reduce_dtype, "fp32");
  EXPECT_NE(published_scenario_text(t, t.rows[0]).find("  reduce_dtype: fp32\n"), std::string::npos);
  EXPECT_EQ(published_scenario_text(parse_published_string(kValid, "t.yaml"), t.rows[0]).find("reduce_dtype"),
            std::string::npos);
  expect_error(replaced("cluster:\n", "reduce_dtype:\n  kind: fp16\n  source: there\ncluster:\n"),
               "t.yaml:13: reduce_dtype.kind:");
  expect_error(replaced("cluster:\n", "reduce_dtype:\n  kind: fp32\ncluster:\n"),
               "reduce_dtype.source: missing");
}

TEST(Published, RowWithoutSequenceCannotBecomeAScenario) {
  const PublishedTable t = parse_published_string(
      replaced("    sequence_tokens: 128\n", "    sequence_tokens: unknown\n"), "t.yaml");
  try {
    published_scenario_text(t, t.rows[0]);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("t.yaml:28: rows.r1.sequence_tokens: unknown and not assumed"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shardscope::fit
