// shardscope-sim: the command line with the SimGrid simulator, which shardscope runs for what simulates.
#include "apps/shardscope/run_cli.hpp"
#include "apps/shardscope/simgrid_simulation.hpp"

int main(int argc, char** argv) {
  return shardscope::cli::run_cli(argc, argv, &shardscope::cli::simgrid_simulation());
}
