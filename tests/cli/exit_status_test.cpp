// Tests of the exit-status mapping: each error type selects its documented code, and --help lists them all.
#include "apps/shardscope/exit_status.hpp"

#include <gtest/gtest.h>

#include "planner/core/error.hpp"
#ifdef SHARDSCOPE_HAVE_SIM
#include "sim/simulation_error.hpp"
#endif

namespace shardscope::cli {
namespace {

TEST(ExitStatus, TheCodesAreFixed) {
  EXPECT_EQ(to_int(ExitStatus::ok), 0);
  EXPECT_EQ(to_int(ExitStatus::failure), 1);
  EXPECT_EQ(to_int(ExitStatus::bad_input), 2);
  EXPECT_EQ(to_int(ExitStatus::nothing_fits), 3);
  EXPECT_EQ(to_int(ExitStatus::simulation_failed), 4);
}

TEST(ExitStatus, EachErrorSelectsItsCode) {
  EXPECT_EQ(exit_status_for(InputError("s.yaml", 3, "training", "bad")), ExitStatus::bad_input);
  EXPECT_EQ(exit_status_for(NothingFits("s.yaml: no plan fits")), ExitStatus::nothing_fits);
  EXPECT_EQ(exit_status_for(PlanDoesNotFit("plan.json: the plan needs 9 GiB", 9e9, 8e9)),
            ExitStatus::nothing_fits);
  EXPECT_EQ(exit_status_for(Interrupted("planning cancelled")), ExitStatus::interrupted);
  EXPECT_EQ(exit_status_for(std::runtime_error("cannot write x")), ExitStatus::failure);
  EXPECT_EQ(exit_status_for(std::bad_alloc()), ExitStatus::failure);
#ifdef SHARDSCOPE_HAVE_SIM
  EXPECT_EQ(exit_status_for(sim::SimulationError("the collective could not progress")),
            ExitStatus::simulation_failed);
#endif
}

TEST(ExitStatus, HelpListsEveryCodeWithItsMeaning) {
  const std::string help = exit_status_help();
  EXPECT_EQ(help.rfind("Exit status:", 0), 0u) << help;
  for (const auto& e : name_table<ExitStatus>()) {
    const std::string line = "\n  " + std::to_string(to_int(e.value)) + "  " + e.description;
    EXPECT_NE(help.find(line), std::string::npos) << help;
  }
}

}  // namespace
}  // namespace shardscope::cli
