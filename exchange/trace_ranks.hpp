// Which ranks a simulation keeps trace events and memory samples for (`simulate --trace-ranks SPEC`): the
// first N ranks ("8", the default), every rank ("all"), every GPU of K nodes spread over the cluster
// ("nodes:K", the first and the last node among them), or ranks and ranges ("0,5,8-15").
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace shardscope::sim {

// Why `spec` is not a selection (what was expected), or nullopt when it is one; the GPU count is not needed.
std::optional<std::string> trace_ranks_syntax_error(const std::string& spec);

// One flag per rank of a cluster of `gpus` GPUs, `gpus_per_node` a node: whether the selection keeps it.
// Throws std::invalid_argument (what was expected) for a bad spec or a rank or node count the cluster does
// not have; "N" with N above the GPU count keeps every rank.
std::vector<unsigned char> traced_ranks(const std::string& spec, int gpus, int gpus_per_node);

}  // namespace shardscope::sim
