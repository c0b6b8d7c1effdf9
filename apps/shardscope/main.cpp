// shardscope: the command line without SimGrid linked; what simulates runs in shardscope-sim (run_cli.hpp).
#include "apps/shardscope/run_cli.hpp"

int main(int argc, char** argv) { return shardscope::cli::run_cli(argc, argv, nullptr); }
