// What one simulation costs (SimGrid hosts, routing table, actor stacks, activities), the documented limits,
// the up-front check that refuses what cannot finish, and the actor stack configuration chosen by need.
#pragma once

#include <cstdint>
#include <string>

#include "exchange/simulation_job.hpp"

namespace shardscope::sim {

// SimGrid 3.32's full zone (the platform's explicit routes) keeps a table of 8 bytes per ordered host pair:
// 16,384 GPUs take 2 GiB, 800,000 would take 4.7 TiB.
constexpr int kMaxSimulatedGpus = 16384;
// kMaxSimulatedActivities (exchange/simulation_job.hpp): the activities one simulation may start.
// Each actor's stack (SimGrid's default is 8 MiB: 2,048 actors took 16 GiB of address space). Our actors
// are shallow: the default and paro-llama-7b-32gpu scenarios and an HO-Ring collective ran unchanged with
// 16 KiB stacks; 256 KiB leaves 16 x that. ASan's redzones and fake frames get 1 MiB.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::int64_t kActorStackBytes = std::int64_t{1} << 20;
#else
constexpr std::int64_t kActorStackBytes = std::int64_t{256} << 10;
#endif

// The size of one simulation, known before SimGrid starts.
struct SimulationSize {
  std::string what;             // "the collective", "the iteration"
  std::int64_t gpus = 0;        // SimGrid hosts
  std::int64_t actors = 0;      // SimGrid actors (each with its own stack)
  std::int64_t activities = 0;  // estimated messages and executions
};

// Address space the simulation is expected to take beyond what the process holds already: routing table,
// actor stacks and guard pages, and SimGrid's per-host, per-actor and per-activity objects.
std::int64_t estimated_address_space_bytes(const SimulationSize& size);

// Refuses, with a SimulationError naming the limit and why, a simulation over kMaxSimulatedGpus GPUs or
// `max_activities` activities, or one whose address space exceeds what RLIMIT_AS (ulimit -v) leaves.
void check_simulation_size(const SimulationSize& size, std::int64_t max_activities = kMaxSimulatedActivities);

// Sets SimGrid's actor stack size (kActorStackBytes) and, when the actors' guard pages would exceed the
// kernel's memory-map limit (vm.max_map_count), turns the guard pages off. Call after create_engine and
// before the first actor.
void configure_actor_stacks(const SimulationSize& size);

}  // namespace shardscope::sim
