// register_calibrate in a build without the fitting library (validate/fit needs Eigen): no `calibrate`.
#include "apps/shardscope/commands.hpp"

namespace shardscope::cli {

std::optional<Registered> register_calibrate(CLI::App& /*app*/) { return std::nullopt; }

}  // namespace shardscope::cli
