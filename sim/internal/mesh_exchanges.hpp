// A mesh's all-to-alls (expert parallelism's dispatch and combine) as pair flows on the platform: per
// distinct exchange of the program, every expert-parallel group's flows, fitted to the planner's price.
#pragma once

#include <map>
#include <utility>
#include <vector>

#include "planner/program/iteration_program.hpp"
#include "sim/collectives/schedule.hpp"

namespace shardscope::sim {

class Platform;

// Every group's flows of one exchange: copies[g] are group g's (ranks g x size ... (g + 1) x size - 1), each
// rank sending every other 1 / size of its buffer; fitted together (fit_nccl_flows) so that alone they take
// the exchange's seconds, its latency first.
using ExchangeKey = std::pair<double, double>;  // a rank's buffer bytes, seconds
using ExchangeFamilies = std::map<ExchangeKey, NcclFamilyFlows>;
ExchangeKey exchange_key(const MeshExchange& e);

// The program's exchanges on `gpus` ranks. Throws SimulationError when an all-to-all's group does not
// divide the ranks.
ExchangeFamilies exchange_families(const IterationProgram& program, int gpus);

// The ordered pairs their flows take (the platform routes them).
std::vector<std::pair<int, int>> exchange_pairs(const ExchangeFamilies& families);

void fit_exchange_families(ExchangeFamilies& families, const Platform& platform);

// Each exchange of a compute task in the order an executor runs it: the `before` ones, the kernels (-1),
// the others.
std::vector<int> exchange_order(const Task& task);

// How the trace names it, as the program names its collectives (A2A, AG, RS, AR).
const char* exchange_abbreviation(const MeshExchange& e);

// The task's kernels: its seconds less its exchanges' (never below 0).
double kernel_seconds(const Task& task);

}  // namespace shardscope::sim
