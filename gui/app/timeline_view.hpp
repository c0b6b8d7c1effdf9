// TimelineView: a Gantt chart of a simulated iteration (QPainter): per selected GPU a compute and a
// communication lane; the wheel zooms around the pointer, a drag pans, a double-click shows it all, and a
// hover names the task with its start and duration.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "timeline_model.hpp"

namespace shardscope::gui {

struct TimelineHit {
  int rank = 0;
  TimelineStream stream = TimelineStream::compute;
  const TimelineTask* task = nullptr;
};

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);

  void set_model(std::shared_ptr<const TimelineModel> model);  // shows all of it, every rank
  void set_ranks(const std::vector<int>& ranks);               // the ranks shown, in this order
  const std::shared_ptr<const TimelineModel>& model() const { return model_; }
  const std::vector<int>& ranks() const { return ranks_; }

  // The shown time window, always inside [0, model end] and at least min_span_seconds() wide.
  double view_begin_seconds() const { return begin_seconds_; }
  double view_end_seconds() const { return end_seconds_; }
  double min_span_seconds() const;
  void set_view(double begin_seconds, double end_seconds);  // clamped into bounds
  void zoom_by(double factor, double anchor_x);             // factor > 1 zooms in around pixel anchor_x
  void pan_by_pixels(double dx);                            // positive: the content moves right
  void reset_view();

  QRectF plot_rect() const;  // where tasks are drawn (right of the lane labels, under the time axis)
  double x_of(double seconds) const;
  QRectF lane_rect(int rank, TimelineStream stream) const;  // empty when the rank is not shown
  std::optional<TimelineHit> task_at(const QPointF& pos) const;
  QString tooltip_at(const QPointF& pos) const;  // "name\nstart …\nduration …", empty off any task
  void paint(QPainter& p, const QRectF& area) const;

  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  double total_seconds() const;
  double seconds_at(double x) const;
  int lane_index(int rank, TimelineStream stream) const;  // -1 when not shown

  std::shared_ptr<const TimelineModel> model_;
  std::vector<int> ranks_;
  double begin_seconds_ = 0;
  double end_seconds_ = 1;
  std::optional<double> drag_x_;
};

}  // namespace shardscope::gui
