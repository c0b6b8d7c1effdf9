// Which optional parts the tested binary was built with: transcripts and doc blocks that need one skip
// without.
#pragma once

namespace shardscope::test {

#ifdef SHARDSCOPE_HAVE_SIM
inline constexpr bool kHaveSim = true;
#else
inline constexpr bool kHaveSim = false;
#endif
#ifdef SHARDSCOPE_HAVE_PLOT
inline constexpr bool kHavePlot = true;
#else
inline constexpr bool kHavePlot = false;
#endif
#ifdef SHARDSCOPE_HAVE_FIT
inline constexpr bool kHaveFit = true;
#else
inline constexpr bool kHaveFit = false;
#endif

}  // namespace shardscope::test
