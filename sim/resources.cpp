// Simulation resources: the estimate of a simulation's address space, the refusal of what cannot finish
// (GPUs, activities, RLIMIT_AS), and SimGrid's actor stack and guard-page settings.
#include "sim/resources.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <simgrid/s4u.hpp>

#include "planner/core/units.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

// SimGrid's full-zone routing table: one pointer per ordered host pair.
constexpr std::int64_t kRouteTableBytesPerPair = 8;
// Estimated with margin (collective at 16,384 GPUs held 2.5 GB, of which 2 GiB routing table): SimGrid's
// host, CPU, netpoint and loopback route objects with our links and routes, per GPU; an actor's objects
// besides its stack.
constexpr std::int64_t kBytesPerHost = 16 << 10;
constexpr std::int64_t kBytesPerActor = 8 << 10;
// Working room for the simulation's own data structures (schedules, results, allocator slack).
constexpr std::int64_t kBaseBytes = std::int64_t{256} << 20;

std::int64_t page_bytes() {
  const long page = ::sysconf(_SC_PAGESIZE);
  return page > 0 ? page : 4096;
}

// The process's address space now (VmSize), or 0 when /proc cannot say.
std::int64_t current_address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::int64_t pages = 0;
  if (!(statm >> pages)) return 0;
  return pages * page_bytes();
}

// The kernel's limit of memory mappings per process (vm.max_map_count), 65530 when /proc cannot say.
std::int64_t max_map_count() {
  std::ifstream in("/proc/sys/vm/max_map_count");
  std::int64_t count = 0;
  return in >> count && count > 0 ? count : 65530;
}

// Guard pages split each stack from its neighbours: two mappings per actor. Keep them while that stays
// under half the kernel's limit (the rest is for the allocator and the libraries).
bool guard_pages_fit(std::int64_t actors) { return 2 * actors <= max_map_count() / 2; }

std::string bytes_text(std::int64_t bytes) { return units::format_bytes(static_cast<double>(bytes)); }

}  // namespace

std::int64_t estimated_address_space_bytes(const SimulationSize& size) {
  const std::int64_t guard = guard_pages_fit(size.actors) ? page_bytes() : 0;
  return kRouteTableBytesPerPair * size.gpus * size.gpus + kBytesPerHost * size.gpus +
         (kActorStackBytes + guard + kBytesPerActor) * size.actors + kBaseBytes;
}

void check_simulation_size(const SimulationSize& size, std::int64_t max_activities) {
  if (size.gpus > kMaxSimulatedGpus) {
    throw SimulationError(
        size.what + " has " + std::to_string(size.gpus) + " GPUs; the simulator takes at most " +
        std::to_string(kMaxSimulatedGpus) + " (SimGrid's routing table holds 8 bytes per pair of GPUs: " +
        bytes_text(kRouteTableBytesPerPair * size.gpus * size.gpus) + " here, " +
        bytes_text(kRouteTableBytesPerPair * kMaxSimulatedGpus * kMaxSimulatedGpus) + " at the limit)");
  }
  if (size.activities > max_activities) {
    throw SimulationError(size.what + " needs about " + std::to_string(size.activities) +
                          " simulated activities; the simulator runs at most " +
                          std::to_string(max_activities) +
                          " (about 10^5 per second: hours here, minutes at the limit)");
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const std::int64_t needed = estimated_address_space_bytes(size);
  const auto allowed = static_cast<std::int64_t>(limit.rlim_cur);
  const std::int64_t held = current_address_space_bytes();
  if (held + needed > allowed) {
    const std::string stacks = size.actors > 0 ? std::to_string(size.actors) + " actor stacks of " +
                                                     bytes_text(kActorStackBytes) + " and "
                                               : std::string();
    throw SimulationError(size.what + " needs about " + bytes_text(needed) + " of address space (" + stacks +
                          "SimGrid's platform of " + std::to_string(size.gpus) +
                          " GPUs) on top of what the process holds, more than the address-space limit "
                          "(ulimit -v) of " +
                          bytes_text(allowed) + " allows; raise the limit or simulate fewer GPUs");
  }
}

void configure_actor_stacks(const SimulationSize& size) {
  simgrid::s4u::Engine::set_config("contexts/stack-size:" + std::to_string(kActorStackBytes >> 10));
  if (!guard_pages_fit(size.actors)) simgrid::s4u::Engine::set_config("contexts/guard-size:0");
}

}  // namespace shardscope::sim
