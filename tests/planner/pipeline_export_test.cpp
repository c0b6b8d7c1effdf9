// A pipeline exported as torchtitan's job-config fields: the degrees multiply to the GPUs, the model parts
// cover every layer once in order (the search's cut, or the interleaved chunks in torchtitan's part order),
// the batch is the pipeline's; other formats and pipelines that do not fit are refused.
#include "planner/report/pipeline_export.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/io/scenario_parser.hpp"

namespace shardscope {
namespace {

Scenario whole(const std::string& parallelism) {
  return parse_scenario_string(
      "model:\n  transformer: {layers: 16, hidden: 2048, heads: 16, vocab: 32000, sequence_length: 2048, "
      "mlp: gated, norm: rmsnorm, positions: rotary}\n"
      "cluster: {preset: dgx-a100, nodes: 2}\n"
      "training: {micro_batch: 2, gradient_accumulation_steps: 8}\nexecution: {runtime: fsdp2}\n"
      "parallelism: " +
          parallelism + "\n",
      "export.yaml");
}

int field(const std::string& toml, const std::string& name) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(toml, m, std::regex("\n" + name + " = ([0-9]+)\n"))) << name;
  return m.empty() ? 0 : std::stoi(m[1].str());
}

// The model parts' modules, in order.
std::vector<std::vector<std::string>> parts(const std::string& toml) {
  std::vector<std::vector<std::string>> out;
  const std::size_t begin = toml.find("module_fqns_per_model_part = [\n");
  const std::size_t end = toml.find("\n]\n", begin);
  std::istringstream lines(toml.substr(begin, end - begin));
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::vector<std::string>& part = out.emplace_back();
    const std::regex name("\"([a-z_.0-9]+)\"");
    for (auto it = std::sregex_iterator(line.begin(), line.end(), name); it != std::sregex_iterator(); ++it)
      part.push_back((*it)[1].str());
  }
  return out;
}

void expect_every_layer_once(const std::vector<std::vector<std::string>>& p, int layers) {
  std::vector<std::string> flat;
  for (const auto& part : p) flat.insert(flat.end(), part.begin(), part.end());
  ASSERT_EQ(flat.size(), static_cast<std::size_t>(layers + 3));
  EXPECT_EQ(flat.front(), "tok_embeddings");
  for (int l = 0; l < layers; ++l)
    EXPECT_EQ(flat[static_cast<std::size_t>(l + 1)], "layers." + std::to_string(l));
  EXPECT_EQ(flat[flat.size() - 2], "norm");
  EXPECT_EQ(flat.back(), "output");
}

TEST(PipelineExport, OneFOneBIsTheSearchsCutWithDegreesThatMultiplyToTheGpus) {
  const Scenario w = whole("{pipeline: 2, tensor: 2, sequence_parallel: true}");
  const PipelineSearch s = search_pipelines(w, Calibration{});
  const PipelineOption& o = s.options.at(s.best);
  ASSERT_TRUE(o.fits) << o.why_not;
  const std::string toml = export_pipeline(w, s, o, ExportFormat::torchtitan).text;
  EXPECT_NE(toml.find("pipeline_parallel_schedule = \"1F1B\"\n"), std::string::npos) << toml;
  EXPECT_EQ(field(toml, "pipeline_parallel_degree"), 2);
  EXPECT_EQ(field(toml, "tensor_parallel_degree"), 2);
  EXPECT_EQ(field(toml, "pipeline_parallel_microbatch_size"), o.micro_batch);
  EXPECT_EQ(field(toml, "local_batch_size"), o.micro_batch * o.micro_batches);
  EXPECT_EQ(field(toml, "seq_len"), 2048);
  EXPECT_EQ(field(toml, "data_parallel_replicate_degree") * field(toml, "data_parallel_shard_degree") *
                field(toml, "tensor_parallel_degree") * field(toml, "context_parallel_degree") *
                field(toml, "pipeline_parallel_degree"),
            16);
  const auto p = parts(toml);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].size(), static_cast<std::size_t>(o.stage_plans[0].layers + 1));  // with the embedding
  expect_every_layer_once(p, 16);
}

// Interleaved, 4 stages x 2 chunks: part k is chunk k, torchtitan's looped order puts it on stage k mod 4.
TEST(PipelineExport, InterleavedPartsAreTheChunksInTorchtitansOrder) {
  const Scenario w = whole("{pipeline: 4, pipeline_schedule: interleaved, virtual_stages: 2}");
  const PipelineSearch s = search_pipelines(w, Calibration{});
  const PipelineOption& o = s.options.at(s.best);
  ASSERT_TRUE(o.fits) << o.why_not;
  const std::string toml = export_pipeline(w, s, o, ExportFormat::torchtitan).text;
  EXPECT_NE(toml.find("pipeline_parallel_schedule = \"Interleaved1F1B\"\n"), std::string::npos) << toml;
  const auto p = parts(toml);
  ASSERT_EQ(p.size(), 8u);
  expect_every_layer_once(p, 16);
  for (std::size_t k = 1; k + 1 < p.size(); ++k) EXPECT_EQ(p[k].size(), 2u);  // 16 layers in 8 chunks
}

TEST(PipelineExport, OtherFormatsAndPipelinesThatDoNotFitAreRefused) {
  const Scenario w = whole("{pipeline: 2}");
  const PipelineSearch s = search_pipelines(w, Calibration{});
  PipelineOption o = s.options.at(s.best);
  for (ExportFormat f : {ExportFormat::fsdp2, ExportFormat::deepspeed}) {
    try {
      export_pipeline(w, s, o, f);
      ADD_FAILURE() << to_string(f);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("a pipeline exports to torchtitan only"), std::string::npos);
    }
  }
  o.fits = false;
  o.why_not = "stage 2 lacks 3 GiB";
  EXPECT_THROW(export_pipeline(w, s, o, ExportFormat::torchtitan), std::invalid_argument);
}

}  // namespace
}  // namespace shardscope
