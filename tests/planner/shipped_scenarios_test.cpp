// Checks that run on every shipped scenario: the solver's instance equals the cost model, the
// recommended plan is never slower than a baseline, and every strategy is priced on one collective library
// (planning all of them is slow under ASan: own timeout).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "planner/cost/cost_model.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/io/sweep_grid.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/mesh_search.hpp"
#include "planner/report/plan_export.hpp"
#include "planner/search/planner.hpp"
#include "planner/search/search_space.hpp"

namespace shardscope {
namespace {

// Calls check(path, scenario, calibration) for every shipped scenario (scenarios/ and the validation
// harness's validate/scenarios/); returns how many there were.
template <typename Check>
int for_each_shipped_scenario(Check check) {
  const std::filesystem::path source(SHARDSCOPE_SOURCE_DIR);
  int count = 0;
  for (const std::filesystem::path& dir : {source / "scenarios", source / "validate" / "scenarios"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".yaml" ||
          entry.path().stem().string().find("cluster") != std::string::npos)
        continue;
      Scenario s = load_scenario_file(entry.path().string());
      // A mesh search runs on the mesh `plan` picks, as the CLI and the GUI do.
      if (s.parallelism.search()) {
        const MeshSearch meshes = search_meshes(s, scenario_calibration(s), PlanRequest{});
        s = meshes.options[meshes.best].scenario.scenario();
      }
      check(entry.path(), s, scenario_calibration(s));
      ++count;
    }
  }
  return count;
}

// The instance the solver sees equals the cost model, operator by operator, on every shipped scenario.
TEST(CostClasses, SolverItemsEqualTheCostModelOnEveryShippedScenario) {
  const int checked = for_each_shipped_scenario(
      [](const std::filesystem::path& path, const Scenario& s, const Calibration& calibration) {
        CostModelOptions options;
        options.collectives = scenario_collectives(s);  // what the search prices every strategy with
        const auto model = make_cost_model(ValidScenario(s), calibration, options);
        const PlanInstance inst = build_instance(ValidScenario(s), calibration, full_space(s.training), 2);
        ASSERT_EQ(inst.choices.size(), s.model.operators.size());
        for (std::size_t i = 0; i < inst.choices.size(); ++i) {
          for (std::size_t k = 0; k < inst.choices[i].size(); ++k) {
            const ItemCost c = model->cost(i, inst.choices[i][k], 2);
            ASSERT_EQ(inst.problem.classes[i][k].seconds, c.seconds) << path << " op " << i;
            ASSERT_EQ(inst.problem.classes[i][k].resident_bytes, c.resident_bytes) << path << " op " << i;
            ASSERT_EQ(inst.problem.classes[i][k].transient_bytes, c.transient_bytes) << path << " op " << i;
          }
        }
      });
  EXPECT_GE(checked, 9);
}

// The count a sweep's cost estimate takes is the number of choices the search enumerates, for every
// strategy and operator of every shipped scenario (checkpointing policies included).
TEST(SearchSpace, CountChoicesIsWhatEnumerateChoicesListsOnEveryShippedScenario) {
  std::int64_t compared = 0;
  const int checked = for_each_shipped_scenario([&](const std::filesystem::path& path, const Scenario& s,
                                                    const Calibration&) {
    for (const std::string& name : strategy_names()) {
      const SearchSpace space = space_by_name(name, s.training);
      for (const Operator& op : s.model.operators) {
        ASSERT_EQ(count_choices(space, op), static_cast<std::int64_t>(enumerate_choices(space, op).size()))
            << path << " " << name << " " << op.name;
        ++compared;
      }
    }
  });
  EXPECT_GE(checked, 9);
  EXPECT_GT(compared, 1000);
}

// A plan's exposed communication adds up: its rows' exposed time is the iteration's time without compute,
// its iteration is the plan's prediction, and no collective is exposed longer than it runs.
void expect_exposure_adds_up(const std::filesystem::path& path, const Scenario& s, const StrategyResult& r) {
  const ProgramExposure& e = r.communication;
  if (s.planner.cost_model != CostModelKind::topology) {
    EXPECT_TRUE(e.rows.empty()) << path << ": " << r.strategy;
    return;
  }
  ASSERT_FALSE(e.rows.empty()) << path << ": " << r.strategy;
  const double iteration = r.plan.predicted.iteration_seconds;
  EXPECT_NEAR(e.iteration_seconds, iteration, 1e-9 * iteration) << path << ": " << r.strategy;
  double exposed = 0;
  for (const CollectiveExposure& row : e.rows) {
    EXPECT_LE(row.exposed_seconds, row.seconds * (1 + 1e-12)) << path << ": " << r.strategy;
    EXPECT_GT(row.collectives, 0) << path << ": " << r.strategy;
    exposed += row.exposed_seconds;
  }
  EXPECT_NEAR(exposed, e.exposed_seconds, 1e-9 * iteration) << path << ": " << r.strategy;
  EXPECT_NEAR(e.compute_seconds + e.exposed_seconds, iteration, 1e-9 * iteration) << path;
}

// Every shipped scenario can be planned (exit 0), except one named to show that nothing fits (exit 3). The
// full space holds every baseline, so the recommended plan is never slower than one that fits (at the
// default batch policy, own; batch_policy_test checks equal); where nothing fits, no baseline fits either.
TEST(Recommendation, EveryShippedScenarioFitsAndIsNeverSlowerThanABaseline) {
  const int checked = for_each_shipped_scenario(
      [](const std::filesystem::path& path, const Scenario& s, const Calibration& calibration) {
        const bool meant_not_to_fit = path.stem().string().find("nothing-fits") != std::string::npos;
        const PlanReport report = plan_scenario(ValidScenario(s), calibration);
        EXPECT_EQ(report.best.fits, !meant_not_to_fit) << path;
        for (const StrategyResult& b : report.baselines) {
          if (!b.fits) continue;
          expect_exposure_adds_up(path, s, b);
          ASSERT_TRUE(report.best.fits) << path << ": " << b.strategy << " fits";
          EXPECT_GE(report.best.plan.predicted.samples_per_second, b.plan.predicted.samples_per_second)
              << path << ": " << b.strategy;
        }
        if (report.best.fits) {
          expect_exposure_adds_up(path, s, report.best);
          // What the plan reports is what evaluating it again gives.
          EXPECT_DOUBLE_EQ(report.best.plan.predicted.iteration_seconds,
                           evaluate_plan(ValidScenario(s), calibration, report.best.plan).iteration_seconds)
              << path;
        }
      });
  EXPECT_GE(checked, 9);
}

// The shipped scenario files: scenarios/*.yaml, the base of every shipped sweep (scenarios/sweeps/) and the
// validation harness's validate/scenarios/ (not its cluster files), each once.
std::vector<std::filesystem::path> shipped_scenario_files() {
  const std::filesystem::path source(SHARDSCOPE_SOURCE_DIR);
  std::set<std::filesystem::path> files;
  for (const std::filesystem::path& dir : {source / "scenarios", source / "validate" / "scenarios"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".yaml" &&
          entry.path().stem().string().find("cluster") == std::string::npos)
        files.insert(std::filesystem::weakly_canonical(entry.path()));
    }
  }
  for (const auto& entry : std::filesystem::directory_iterator(source / "scenarios" / "sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    const SweepGrid grid = load_sweep_grid(entry.path().string(), strategy_lookup());
    if (!grid.base_scenario.empty()) files.insert(std::filesystem::weakly_canonical(grid.base_scenario));
  }
  return {files.begin(), files.end()};
}

// One plan compares its contestants on one collective library: every baseline row (fitting or not) and the
// recommended plan report the same collectives, the scenario's own where it names ring or nccl, NCCL's under
// auto (the topology model; the paper model prices its own alpha-beta rings).
TEST(CollectivesChoice, EveryShippedScenarioPricesEveryStrategyOnOneLibrary) {
  int checked = 0;
  for (const std::filesystem::path& path : shipped_scenario_files()) {
    const Scenario s = load_scenario_file(path.string());
    const PlanReport report = plan_scenario(ValidScenario(s), scenario_calibration(s));
    const nlohmann::ordered_json json = report_to_json(report, s);
    std::string expected = s.execution.collectives == CollectivesChoice::ring   ? "ring"
                           : s.execution.collectives == CollectivesChoice::nccl ? "nccl"
                                                                                : "";
    if (expected.empty()) expected = s.planner.cost_model == CostModelKind::topology ? "nccl" : "ring";
    if (report.best.fits) {
      EXPECT_EQ(json.at("plan").at("collectives"), expected) << path;
    }
    ASSERT_FALSE(json.at("baselines").empty()) << path;
    for (const auto& row : json.at("baselines"))
      EXPECT_EQ(row.at("collectives"), expected) << path << ": " << row.at("strategy");
    ++checked;
  }
  EXPECT_GE(checked, 11);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The Hugging Face Llama-style modules a generated transformer of `layers` layers has.
std::set<std::string> hf_modules(int layers) {
  std::set<std::string> out{"model.embed_tokens", "model.norm", "lm_head"};
  for (int i = 0; i < layers; ++i) {
    out.insert("model.layers." + std::to_string(i) + ".self_attn");
    out.insert("model.layers." + std::to_string(i) + ".mlp");
  }
  return out;
}

// Every quoted path in the FSDP2 module's PLAN lines' Hugging Face lists.
std::vector<std::string> plan_hf_paths(const std::string& module) {
  std::vector<std::string> out;
  std::istringstream lines(module);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("    (\"", 0) != 0) continue;
    const std::size_t open = line.find('['), close = line.find(']');
    std::string list = line.substr(open + 1, close - open - 1);
    for (std::size_t q = list.find('"'); q != std::string::npos; q = list.find('"', q)) {
      const std::size_t end = list.find('"', q + 1);
      out.push_back(list.substr(q + 1, end - q - 1));
      q = end + 1;
    }
  }
  return out;
}

// Compares with tests/golden/export-STEM.EXT, or (SHARDSCOPE_UPDATE_GOLDEN=1) rewrites it.
void expect_golden(const std::string& name, const std::string& text) {
  const std::filesystem::path golden =
      std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "tests" / "golden" / name;
  const char* update = std::getenv("SHARDSCOPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(golden, std::ios::binary) << text;
    return;
  }
  EXPECT_EQ(read_text(golden), text) << name << " differs: regenerate with scripts/update-golden.sh";
}

// Issue 36, export: every shipped scenario's plan as an FSDP2 module that Python compiles and that names
// only modules the model has, torchtitan degrees that multiply to the GPUs, DeepSpeed JSON that parses;
// the default and PaRO LLaMA-7B scenarios' files kept as golden files.
TEST(PlanExport, EveryShippedScenariosPlanExportsToEveryFormat) {
  const bool python = std::system("python3 -c pass > /dev/null 2>&1") == 0;
  int exported = 0;
  for_each_shipped_scenario([&](const std::filesystem::path& path, const Scenario& s, const Calibration& c) {
    const PlanReport report =
        plan_scenario(ValidScenario(s), c,
                      {.with_baselines = false, .candidate_plans = 0, .pins = {}, .search = {.threads = 1}});
    if (!report.best.fits) return;
    const Plan& plan = report.best.plan;
    const std::string stem = path.stem().string();
    const PlanExport fsdp2 = export_plan(s, plan, ExportFormat::fsdp2);
    int layers = 0;
    bool generated = true;
    for (const Operator& op : s.model.operators) {
      layers = std::max(layers, op.layer + 1);
      generated = generated && (op.layer >= 0 || op.name == "embedding" || op.name == "head");
    }
    if (generated) {
      const std::set<std::string> modules = hf_modules(layers);
      for (const std::string& module : plan_hf_paths(fsdp2.text))
        EXPECT_TRUE(modules.count(module)) << stem << ": " << module;
    }
    EXPECT_EQ(plan_hf_paths(fsdp2.text).size() >= s.model.operators.size(), true) << stem;
    if (python) {
      const std::filesystem::path file = std::filesystem::temp_directory_path() / ("export_" + stem + ".py");
      std::ofstream(file) << fsdp2.text;
      EXPECT_EQ(std::system(("python3 -m py_compile " + file.string()).c_str()), 0) << stem;
      std::filesystem::remove(file);
    }
    const PlanExport titan = export_plan(s, plan, ExportFormat::torchtitan);
    const auto degree = [&](const std::string& key) {
      const std::size_t at = titan.text.find(key + " = ");
      return at == std::string::npos ? 0 : std::stoi(titan.text.substr(at + key.size() + 3));
    };
    // torchtitan's dp_replicate x dp_shard x cp are the data-parallel view's ranks (a mesh names cp).
    EXPECT_EQ(degree("data_parallel_replicate_degree") * degree("data_parallel_shard_degree") *
                  std::max(1, degree("context_parallel_degree")),
              s.cluster.gpus())
        << stem;
    if (s.mesh.sliced()) EXPECT_EQ(degree("tensor_parallel_degree"), s.mesh.tensor.degree) << stem;
    const PlanExport ds = export_plan(s, plan, ExportFormat::deepspeed);
    const nlohmann::json j = nlohmann::json::parse(ds.text);
    EXPECT_EQ(j["train_micro_batch_size_per_gpu"], plan.micro_batch) << stem;
    if (stem == "default" || stem == "paro-llama-7b-32gpu") {
      expect_golden("export-" + stem + ".py", fsdp2.text);
      expect_golden("export-" + stem + ".toml", titan.text);
      expect_golden("export-" + stem + ".json", ds.text);
    }
    ++exported;
  });
  EXPECT_GE(exported, 6);
  if (!python) GTEST_SKIP() << "python3 not found: the FSDP2 modules were not compiled";
}

}  // namespace
}  // namespace shardscope
