// shardscope-sweep-mpi: `shardscope sweep ... --mpi` execs it in every MPI rank (sweep_mpi.hpp).
#include "apps/shardscope/sweep_mpi.hpp"

int main(int argc, char** argv) { return shardscope::cli::run_sweep_mpi(argc, argv); }
