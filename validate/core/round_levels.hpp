// Each plan's time from interleaved rounds: the median of its time over its round's level, times the median
// level, so that a shared machine changing pace between rounds moves every plan alike and no plan's median.
#pragma once

#include <vector>

namespace shardscope::validate {

// seconds[p][r]: plan p's measured time in round r (every plan one time per round, all > 0). A round's level
// is the geometric mean of its plans' times; plan p's estimate is median_r(seconds[p][r] / level_r) x
// median_r(level_r). One plan: its plain median. Throws std::invalid_argument on rounds of unequal counts or
// a time that is not positive.
std::vector<double> round_normalized_medians(const std::vector<std::vector<double>>& seconds);

}  // namespace shardscope::validate
