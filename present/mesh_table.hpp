// The mesh table `plan` prints under parallelism.tensor: search: each tensor-parallel mesh's plan beside its
// fastest baseline, the chosen mesh marked, and the degrees that could not be built with their reasons.
#pragma once

#include <ostream>

#include "planner/report/mesh_search.hpp"

namespace shardscope::present {

void write_mesh_table(std::ostream& out, const MeshSearch& search);

}  // namespace shardscope::present
