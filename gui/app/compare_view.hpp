// CompareView: plan A (kept) and plan B (shown now) side by side — the scenario they were made for, batch,
// throughput, iteration time and peak memory with B − A, then one row per operator (matched by name) with the
// rows whose choice differs highlighted and the memory and time deltas; runs of identical rows are folded.
#pragma once

#include <QStringList>
#include <QWidget>
#include <array>
#include <optional>
#include <vector>

#include "plan_compare.hpp"

namespace shardscope::gui {

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);

  void set_a(std::optional<PlanSnapshot> a);
  void set_b(std::optional<PlanSnapshot> b);
  void set_only_changed(bool only);  // hide operators whose choice is the same
  const std::optional<PlanSnapshot>& a() const { return a_; }
  const std::optional<PlanSnapshot>& b() const { return b_; }
  const PlanComparison& comparison() const { return comparison_; }

  // What stands instead of the operator table (no A, no B, different models, a plan that does not fit);
  // empty when the table is shown.
  QString message() const { return message_; }
  // Summary lines as "metric: A | B | B − A", in the order drawn.
  QStringList summary_lines() const;
  // The operators drawn highlighted (their scopes, slices or checkpointing differ), model order.
  std::vector<std::string> highlighted_operators() const;
  int operator_lines() const { return static_cast<int>(lines_.size()); }  // rows drawn in the table
  // The width of summary column `column` (0 metric, 1 A, 2 B, 3 B − A) in pixels, its padding included.
  int summary_column_width(int column) const { return summary_widths_.at(static_cast<std::size_t>(column)); }

  void paint(QPainter& p, int width) const;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  struct SummaryRow {
    QString metric, a, b, delta;
    bool differs = false;
    int better = 0;  // +1: B is better, -1: B is worse, 0: neither
  };
  struct Line {
    std::size_t first = 0;  // index into comparison_.operators
    std::size_t last = 0;   // == first for one operator; a folded run otherwise
  };
  void rebuild();
  void fit_summary_columns();
  int summary_width() const;
  int content_height() const;

  std::optional<PlanSnapshot> a_;
  std::optional<PlanSnapshot> b_;
  bool only_changed_ = false;
  PlanComparison comparison_;
  std::vector<SummaryRow> summary_;
  std::array<int, 4> summary_widths_{};
  std::vector<Line> lines_;
  std::size_t hidden_ = 0;  // operators left out by only_changed_
  QString message_;
};

}  // namespace shardscope::gui
