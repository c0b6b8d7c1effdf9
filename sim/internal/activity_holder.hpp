// ActivityHolder: keeps the activities started without an actor alive until SimGrid is done with them.
#pragma once

#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

namespace shardscope::sim {

// An activity started from the engine's callbacks has no actor holding it: this holds it while it runs,
// and, once completed, until the clock has moved on (SimGrid still uses it while its completion signal
// runs, and a callback at the same date may be inside that signal).
class ActivityHolder {
 public:
  void started(simgrid::s4u::ActivityPtr activity) {
    const simgrid::s4u::Activity* key = activity.get();
    running_.emplace(key, std::move(activity));
  }
  // Call from the completion signal of an activity passed to started().
  void completed(const simgrid::s4u::Activity& activity) {
    const double now = simgrid::s4u::Engine::get_clock();
    if (now > completed_at_) {
      completed_.clear();  // completed before now: SimGrid no longer uses them
      completed_at_ = now;
    }
    const auto it = running_.find(&activity);
    if (it == running_.end()) return;
    completed_.push_back(std::move(it->second));
    running_.erase(it);
  }

 private:
  std::unordered_map<const simgrid::s4u::Activity*, simgrid::s4u::ActivityPtr> running_;
  std::vector<simgrid::s4u::ActivityPtr> completed_;
  double completed_at_ = -1;
};

}  // namespace shardscope::sim
