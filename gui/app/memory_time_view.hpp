// MemoryTimeView: one GPU's memory over the simulated iteration as stacked steps by category (parameters,
// gradients, optimizer, activations, gathered buffers, workspace, reserve), the memory limit as a line, the
// peak marked, and hover for the values at the pointer.
#pragma once

#include <QWidget>
#include <optional>
#include <vector>

#include "chart/chart.hpp"
#include "timeline_model.hpp"

class QFontMetricsF;
namespace shardscope::gui {

class MemoryTimeView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryTimeView(QWidget* parent = nullptr);

  // The samples of one GPU (sorted by time), the iteration's end and the limit (0: none).
  void set_samples(std::vector<TimelineMemorySample> samples, double end_seconds, double limit_bytes,
                   const QString& title);
  void clear(const QString& message);

  const std::vector<TimelineMemorySample>& samples() const { return samples_; }
  double peak_bytes() const { return peak_bytes_; }
  double peak_seconds() const { return peak_seconds_; }
  // The sample in force at `seconds` (the last one at or before it), if any.
  std::optional<std::size_t> sample_at(double seconds) const;
  // The hover text at a widget position (after a paint; empty outside the plot).
  QString tooltip_at(const QPointF& position) const;
  // The widget position of the peak's mark (after a paint).
  QPointF peak_position() const;

  void paint(QPainter& p, const QRectF& area) const;

 protected:
  void paintEvent(QPaintEvent*) override;
  bool event(QEvent* event) override;

 private:
  // The stacked bands, one per category (in kStackOrder), drawn as steps inside the plot.
  void draw_bands(QPainter& p, const std::vector<QColor>& colors) const;
  // The memory limit's dashed line and the peak's mark with its value.
  void draw_limit_and_peak(QPainter& p, const QFontMetricsF& fm) const;
  std::vector<TimelineMemorySample> samples_;
  double end_seconds_ = 0;
  double limit_bytes_ = 0;
  double peak_bytes_ = 0;
  double peak_seconds_ = 0;
  QString title_;
  QString message_ = "Simulate (Ctrl+R) to see memory over the iteration";
  // Where the last paint put the plot, and its axes (for hover and the peak's position).
  mutable QRectF plot_;
  mutable chart::Axis x_;
  mutable chart::Axis y_;
};

}  // namespace shardscope::gui
