// plan with a tensor-parallel mesh (issue 33): --tp search prints the mesh table and JSON, --tp N plans that
// mesh and records it in the plan file, and every bad degree or combination exits 2 naming the option.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.hpp"

namespace shardscope {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;
const std::string kSource = SHARDSCOPE_SOURCE_DIR;
const std::string kEightB = kSource + "/scenarios/llama3.1-8b-tp2-16gpu.yaml";

TEST(TensorParallelCli, SearchComparesEveryDegreeInOneTable) {
  const auto r = test::run_command(kBinary + " plan " + kEightB + " --tp search --sp --quiet --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& meshes = j.at("mesh_search").at("meshes");
  ASSERT_EQ(meshes.size(), 4u);
  double fastest = 0, chosen = 0;
  int chosen_degree = 0;
  for (const auto& m : meshes) {
    EXPECT_EQ(m.at("gpus").get<int>(), 16);
    EXPECT_EQ(m.at("data_parallel").get<int>() * m.at("tensor").get<int>(), 16);
    if (!m.at("fits").get<bool>()) continue;
    fastest = std::max(fastest, m.at("tokens_per_second").get<double>());
    if (m.at("chosen").get<bool>()) {
      chosen = m.at("tokens_per_second").get<double>();
      chosen_degree = m.at("tensor").get<int>();
    }
  }
  EXPECT_EQ(chosen, fastest);
  EXPECT_EQ(j.at("plan").at("predicted").at("tokens_per_second").get<double>(), chosen);
  EXPECT_EQ(j.at("gpus").get<int>(), 16);
  if (chosen_degree > 1) {
    EXPECT_EQ(j.at("mesh").at("tensor").get<int>(), chosen_degree);
  }
  const auto text = test::run_command(kBinary + " plan " + kEightB + " --tp search --sp --quiet");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Meshes (parallelism: search"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("TP 8 + SP x DP 2 (16 GPUs)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("on 16 x A100-SXM4-80GB"), std::string::npos) << text.out;
}

TEST(TensorParallelCli, AFixedMeshIsPlannedSimulatedAndRecorded) {
  const auto dir = std::filesystem::temp_directory_path() / ("ss_tp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string plan = (dir / "plan.json").string();
  const auto r = test::run_command(kBinary + " plan " + kEightB + " --quiet --no-baselines --out " + plan);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Mesh      TP 2 + SP x DP 8 (16 GPUs)"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test::run_command("cat " + plan).out);
  EXPECT_EQ(j.at("plan").at("mesh").at("tensor").get<int>(), 2);
#ifdef SHARDSCOPE_HAVE_SIM  // simulate needs the simulator (TensorParallel.PlanFilesRecordTheMesh... checks
                            // the refusal)
  // The plan of a TP 2 mesh refused on a TP 4 one, with the plan file's field.
  const auto other = test::run_command(kBinary + " simulate " + kEightB + " --tp 4 --sp --plan " + plan);
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("plan.mesh: the plan was made for tensor-parallel degree 2"), std::string::npos)
      << other.err;
  // A search scenario runs the plan's mesh.
  const auto search =
      test::run_command(kBinary + " simulate " + kEightB + " --tp search --sp --quiet --plan " + plan);
  EXPECT_EQ(search.exit_code, 0) << search.err;
  EXPECT_NE(search.out.find("on 16 x A100-SXM4-80GB as TP 2 + SP x DP 8, micro-batch"), std::string::npos)
      << search.out;
  // A group asked for across whole nodes (LLaMA-7B, TP 16 over two DGX nodes): the simulator's iteration is
  // the planner's, its TP collectives priced over the network inside the compute tasks.
  const auto across = test::run_command(kBinary + " simulate " + kSource +
                                        "/scenarios/paro-llama-7b-32gpu.yaml --tp 16 --json");
  ASSERT_EQ(across.exit_code, 0) << across.err;
  const auto a = nlohmann::json::parse(across.out);
  const double planned = a.at("planner").at("iteration_seconds").get<double>();
  EXPECT_NEAR(a.at("iteration_seconds").get<double>(), planned, 1e-6 * planned);
#endif
  std::filesystem::remove_all(dir);
}

TEST(TensorParallelCli, InspectSaysTheFiguresAreOneGpusSlice) {
  const auto text = test::run_command(kBinary + " inspect " + kEightB);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(
      text.out.find("Mesh      TP 2 + SP x DP 8 (16 GPUs): one GPU's slice of the 8.03 B-parameter model"),
      std::string::npos)
      << text.out;
  const auto j =
      nlohmann::json::parse(test::run_command(kBinary + " inspect " + kEightB + " --json --cp 2").out);
  EXPECT_EQ(j.at("mesh").at("context").get<int>(), 2);
  EXPECT_EQ(j.at("mesh").at("gpus").get<int>(), 16);
  EXPECT_EQ(j.at("model").at("sequence_length").get<int>(), 4096);  // a sample is a chunk
}

TEST(TensorParallelCli, BadDegreesExitTwoNamingTheField) {
  const std::pair<std::string, std::string> cases[] = {
      {"--tp 3", "--tp 3: tensor-parallel degree 3 does not divide the 8 GPUs of a node"},
      {"--tp 16", "tensor-parallel degree 16 does not divide the 8 KV heads"},
      {"--tp 24", "--tp 24: tensor-parallel degree 24 spans nodes"},
      {"--tp 0", "--tp 0"},
      {"--tp x", "--tp x"},
      {"--tp ''", "--tp"},
      {"--tp 1 --sp", "sequence parallelism needs a tensor degree above 1"},
      {"--tp 2 --out /dev/null --export fsdp2", "--export: the plan runs on a model-parallel mesh"},
      {"--target-tokens-per-second 1M", "--target-tokens-per-second: searches node counts of data-parallel"},
      {"--cp 3",
       "--cp 3: with this value, parallelism.tensor: tensor-parallel degree 2 x context-parallel degree 3"},
      {"--cp 0", "--cp 0"},
  };
  for (const auto& [arguments, message] : cases) {
    const auto r = test::run_command(kBinary + " plan " + kEightB + " --quiet " + arguments);
    EXPECT_EQ(r.exit_code, 2) << arguments << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << arguments << ": " << r.err;
  }
#ifdef SHARDSCOPE_HAVE_SIM  // without the simulator --refine is refused before the mesh is looked at
  const auto refine = test::run_command(kBinary + " plan " + kSource +
                                        "/scenarios/llama3-70b-64gpu-tp.yaml --refine 2 --quiet");
  EXPECT_EQ(refine.exit_code, 2);
  EXPECT_NE(refine.err.find("--refine: simulates one scenario's candidates"), std::string::npos)
      << refine.err;
#endif
  const auto list =
      test::run_command(kBinary + " plan " + kSource + "/scenarios/default.yaml --tp 16 --quiet");
  EXPECT_EQ(list.exit_code, 2);
  EXPECT_NE(list.err.find("the 1 nodes must hold whole groups"), std::string::npos) << list.err;
}

}  // namespace
}  // namespace shardscope
