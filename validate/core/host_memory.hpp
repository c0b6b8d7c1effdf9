// Host memory for measured runs: freed blocks stay in the process for the next allocation (no page faults
// after warm-up), and the minor page faults a stretch of work took, so runs can show they had none.
#pragma once

namespace shardscope::validate {

// Tells the C library to keep freed host memory and to serve blocks up to 32 MiB from it: MPI's collectives
// take temporary buffers of the message size per call (a reduce-scatter of 8 MiB takes 8 MiB), and with
// memory given back to the system each call touched fresh pages, 4,500 page faults per iteration on one rank,
// which no GPU collective pays. Call once, before MPI starts. No effect outside the GNU C library.
void keep_freed_host_memory();

// Minor page faults of this process so far (every thread), or 0 where the system does not count them.
long minor_page_faults();

}  // namespace shardscope::validate
