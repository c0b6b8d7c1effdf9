// Hostnames by MPI_Allgather of processor names; ranks per node from a shared-memory split (gethostname and
// one rank without MPI); /proc for the rest.
#include "validate/mpi/machine_info.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "validate/mpi/mpi_comm.hpp"

namespace shardscope::validate {

namespace {

// The value of the first "key ... : value" line of a /proc file ("" when absent).
std::string proc_value(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::size_t start = line.find_first_not_of(" \t", colon + 1);
    return start == std::string::npos ? "" : line.substr(start);
  }
  return "";
}

}  // namespace

MachineInfo mpi_machine_info(double compute_scale) {
  MachineInfo info;
  info.backend = "cpu-mpi";
  info.ranks = world_size();
  if (mpi_in_use()) {
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    SHARDSCOPE_MPI_CHECK(MPI_Get_processor_name(name, &length));
    std::vector<char> all(static_cast<std::size_t>(MPI_MAX_PROCESSOR_NAME) *
                          static_cast<std::size_t>(info.ranks));
    SHARDSCOPE_MPI_CHECK(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                                       MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD));
    for (int r = 0; r < info.ranks; ++r)
      info.hostnames.emplace_back(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
    MPI_Comm node = MPI_COMM_NULL;
    SHARDSCOPE_MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    SHARDSCOPE_MPI_CHECK(MPI_Comm_size(node, &info.ranks_per_node));
    MPI_Comm_free(&node);
  } else {  // --no-mpi: this process alone
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    info.hostnames.emplace_back(name);
    info.ranks_per_node = 1;
  }
  const std::string cpu = proc_value("/proc/cpuinfo", "model name");
  info.device_name = (cpu.empty() ? std::string("cpu") : cpu) + " (one MPI rank)";
  info.versions["mpi"] = mpi_version();
  info.compute_scale = compute_scale;
  const std::string total = proc_value("/proc/meminfo", "MemTotal");  // "24576000 kB"
  const double kib = total.empty() ? 0 : std::stod(total);
  info.memory_bytes_per_rank = kib * 1024 / std::max(1, info.ranks_per_node);
  return info;
}

}  // namespace shardscope::validate
