// A mesh's collectives among data-parallel ranks as flows on the platform: expert parallelism's all-to-alls
// as pair flows, context parallelism's K/V exchanges as rings; per distinct exchange of the program every
// group's flows, fitted to the planner's price.
#pragma once

#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "planner/program/iteration_program.hpp"
#include "sim/collectives/schedule.hpp"

namespace shardscope::sim {

class Platform;

// Every group's flows of one exchange (MeshExchange::runs_as_flows): copies[g] are group g's (ranks
// g x size ... (g + 1) x size - 1). An all-to-all sends from each rank to every other 1 / size of its
// buffer; a ring exchange (an all-gather or reduce-scatter) sends from each rank to the next (size - 1) /
// size of it, every step in one flow. Fitted together (fit_nccl_flows) so that alone they take the
// exchange's seconds, its latency first.
using ExchangeKey = std::tuple<bool, int, double, double, double>;  // all-to-all, ranks, bytes, s, latency
using ExchangeFamilies = std::map<ExchangeKey, NcclFamilyFlows>;
ExchangeKey exchange_key(const MeshExchange& e);

// The program's exchanges that run as flows (all-to-alls of groups up to `coarse_above` ranks) on `gpus`
// ranks. Throws SimulationError when a group does not divide the ranks.
ExchangeFamilies exchange_families(const IterationProgram& program, int gpus, int coarse_above);

// The ordered pairs their flows take (the platform routes them).
std::vector<std::pair<int, int>> exchange_pairs(const ExchangeFamilies& families);

void fit_exchange_families(ExchangeFamilies& families, const Platform& platform);

// A compute task's blocking exchanges in the order an executor runs them: the `before` ones, the kernels
// (-1, with the overlapped ones beside), the others; and its overlapped ones, in order.
std::vector<int> exchange_order(const Task& task);
std::vector<int> overlapped_exchanges(const Task& task);

// How the trace names an exchange, as the program names its collectives (A2A, AG, RS, AR).
const char* exchange_abbreviation(const MeshExchange& e);

// The task's kernels: its seconds less its blocking exchanges' (never below 0). With overlapped exchanges
// that is the longer of the kernels and those exchanges alone, as the planner prices the pass.
double kernel_seconds(const Task& task);

}  // namespace shardscope::sim
