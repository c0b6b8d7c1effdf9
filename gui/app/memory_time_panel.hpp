// MemoryTimePanel: the "Memory over time" tab — which traced GPU to show, its simulated peak against the
// simulator's own figure and the limit, and the MemoryTimeView of that GPU from the last simulation.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "simulation_service.hpp"

class QComboBox;
class QLabel;

namespace shardscope::gui {

class MemoryTimeView;

class MemoryTimePanel : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryTimePanel(QWidget* parent = nullptr);

  // A successful simulation and the memory limit of the scenario it ran (0: unknown); shows the first GPU.
  void set_simulation(std::shared_ptr<const SimulationOutcome> outcome, double limit_bytes);
  void set_rank(int rank);  // a traced GPU; others are ignored
  int rank() const;         // -1 before a simulation
  // The simulator's peak for `rank` (its --json output, gpus[].peak_memory_bytes), if it reported one.
  std::optional<double> reported_peak_bytes(int rank) const;

  MemoryTimeView* view() const { return view_; }
  QComboBox* rank_box() const { return ranks_; }
  QString info_text() const;

 private:
  void show_rank();

  std::shared_ptr<const SimulationOutcome> outcome_;
  double limit_bytes_ = 0;
  QComboBox* ranks_ = nullptr;
  QLabel* info_ = nullptr;
  MemoryTimeView* view_ = nullptr;
};

}  // namespace shardscope::gui
