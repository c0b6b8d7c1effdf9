// NCCL's model with a calibration's measured link rates: a calibrated class's bandwidth becomes NCCL's bus
// bandwidth over hops of that class (channels, protocols and latencies stay NCCL's).
#pragma once

#include "planner/core/calibration.hpp"
#include "planner/cost/nccl_model.hpp"

namespace shardscope {

// As nccl_family, with `calibration`'s links: inside the nodes, when every hop class of the
// nodes' rings is calibrated, the bus bandwidth is the slowest of their calibrated rates (the bus bandwidth
// one collective alone reached there, as calibrate fits it from nccl-tests' busbw); across nodes, the
// network's calibrated rate divided by the communicators that share a NIC. Uncalibrated classes keep NCCL's
// ladder of the nominal links; message-efficiency tables and per-kind factors are the ring model's and do
// not apply (NCCL's protocols model the message size).
NcclFamily nccl_family(const Cluster& cluster, const NcclGroup& group, const Calibration& calibration);

}  // namespace shardscope
