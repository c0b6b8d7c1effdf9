// Drawing the A/B comparison: summary table, then the per-operator table with differences highlighted.
#include "compare_view.hpp"

#include <QFontMetricsF>
#include <QPaintEvent>
#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>

#include "planner/core/units.hpp"
#include "scope_colors.hpp"

namespace shardscope::gui {
namespace {

constexpr int kLine = 20;  // pixels per table line
constexpr int kMargin = 8;
constexpr int kFoldRun = 3;  // runs of this many identical operators or more are folded into one line
const QColor kChanged(255, 236, 160);
const QColor kHeader(230, 230, 230);
const QColor kBetter(0, 130, 0);
const QColor kWorse(190, 0, 0);

// Operator table columns: title and width in pixels.
struct Column {
  const char* title;
  int width;
};
constexpr std::array<Column, 11> kColumns{{{"operator", 200},
                                           {"choice A", 100},
                                           {"choice B", 100},
                                           {"ckpt A", 55},
                                           {"ckpt B", 55},
                                           {"memory A", 85},
                                           {"memory B", 85},
                                           {"Δ memory", 90},
                                           {"time A", 85},
                                           {"time B", 85},
                                           {"Δ time", 90}}};
constexpr std::array<int, 4> kSummaryColumns{200, 210, 210, 200};  // narrowest: metric, A, B, B − A
constexpr int kCellPadding = 8;  // pixels left and right of a cell's text together

QString bytes(double b) { return QString::fromStdString(units::format_bytes(b)); }
QString duration(double s) { return QString::fromStdString(units::format_duration(s)); }

QString signed_bytes(double d) { return (d > 0 ? "+" : d < 0 ? "−" : "±") + bytes(std::abs(d)); }
QString signed_duration(double d) { return (d > 0 ? "+" : d < 0 ? "−" : "±") + duration(std::abs(d)); }
QString percent(double b, double a) {
  if (a == 0) return {};
  return " (" + QString::fromStdString(percent_change(b, a)) + ")";
}
QString yes_no(bool b) { return b ? "yes" : "no"; }

QString batch_text(const PlanSnapshot& s) {
  if (!s.fits) return "no plan fits";
  return QString("%1 × %2 steps × %3 GPUs = %4")
      .arg(s.plan.micro_batch)
      .arg(s.plan.gradient_accumulation_steps)
      .arg(s.scenario.cluster.gpus())
      .arg(s.global_batch());
}

QString pins_text(const PlanSnapshot& s) {
  if (s.pins.empty()) return "none";
  QString text = QString("%1 pinned operator%2").arg(s.pins.size()).arg(s.pins.size() == 1 ? "" : "s");
  if (s.fits && s.unpinned) {
    text += " (throughput " + QString::fromStdString(pins_cost(s.plan.predicted, *s.unpinned).throughput) +
            " against the unpinned plan)";
  }
  return text;
}

int total_width() {
  int w = 0;
  for (const Column& c : kColumns) w += c.width;
  return w;
}

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
  rebuild();
}

void CompareView::set_a(std::optional<PlanSnapshot> a) {
  a_ = std::move(a);
  rebuild();
}

void CompareView::set_b(std::optional<PlanSnapshot> b) {
  b_ = std::move(b);
  rebuild();
}

void CompareView::set_only_changed(bool only) {
  only_changed_ = only;
  rebuild();
}

void CompareView::rebuild() {
  comparison_ = {};
  summary_.clear();
  lines_.clear();
  hidden_ = 0;
  message_.clear();
  if (!a_) {
    message_ =
        "No plan A yet: \"Keep as A\" (Ctrl+K) freezes the plan shown now; then change the scenario "
        "or the pins and compare the new plan (B) with it here.";
  } else if (!b_) {
    message_ = "No plan B: the planner has not shown a plan since A was kept.";
  }
  if (a_ && b_) {
    const PlanSnapshot& a = *a_;
    const PlanSnapshot& b = *b_;
    comparison_ = compare_plans(a, b);
    const auto text_row = [&](const QString& metric, const QString& va, const QString& vb) {
      summary_.push_back({metric, va, vb, {}, va != vb, 0});
    };
    text_row("scenario", QString::fromStdString(a.scenario.name), QString::fromStdString(b.scenario.name));
    text_row("model",
             QString("%1 (%2 operators)")
                 .arg(QString::fromStdString(a.scenario.model.name))
                 .arg(a.scenario.model.operators.size()),
             QString("%1 (%2 operators)")
                 .arg(QString::fromStdString(b.scenario.model.name))
                 .arg(b.scenario.model.operators.size()));
    text_row("GPUs",
             QString("%1 × %2")
                 .arg(a.scenario.cluster.gpus())
                 .arg(QString::fromStdString(a.scenario.cluster.gpu.name)),
             QString("%1 × %2")
                 .arg(b.scenario.cluster.gpus())
                 .arg(QString::fromStdString(b.scenario.cluster.gpu.name)));
    text_row("memory limit per GPU", bytes(static_cast<double>(a.scenario.training.memory_limit_bytes)),
             bytes(static_cast<double>(b.scenario.training.memory_limit_bytes)));
    text_row("pins", pins_text(a), pins_text(b));
    text_row("strategy", a.fits ? QString::fromStdString(a.plan.strategy) : QString::fromStdString(a.label),
             b.fits ? QString::fromStdString(b.plan.strategy) : QString::fromStdString(b.label));
    text_row("batch", batch_text(a), batch_text(b));
    if (a.fits && b.fits) {
      const PlanPrediction& pa = a.plan.predicted;
      const PlanPrediction& pb = b.plan.predicted;
      const auto better = [](double d, bool higher_is_better) {
        return d == 0 ? 0 : ((d > 0) == higher_is_better ? 1 : -1);
      };
      const double dt = pb.samples_per_second - pa.samples_per_second;
      summary_.push_back({"throughput (samples/s)", QString::number(pa.samples_per_second, 'f', 2),
                          QString::number(pb.samples_per_second, 'f', 2),
                          dt == 0 ? QString("same")
                                  : QString("%1%2").arg(dt > 0 ? "+" : "−").arg(std::abs(dt), 0, 'f', 2) +
                                        percent(pb.samples_per_second, pa.samples_per_second),
                          dt != 0, better(dt, true)});
      const double di = pb.iteration_seconds - pa.iteration_seconds;
      summary_.push_back({"iteration time", duration(pa.iteration_seconds), duration(pb.iteration_seconds),
                          di == 0 ? QString("same")
                                  : signed_duration(di) + percent(pb.iteration_seconds, pa.iteration_seconds),
                          di != 0, 0});
      const double dm = pb.peak_memory_bytes - pa.peak_memory_bytes;
      summary_.push_back(
          {"peak memory per GPU", bytes(pa.peak_memory_bytes), bytes(pb.peak_memory_bytes),
           dm == 0 ? QString("same") : signed_bytes(dm) + percent(pb.peak_memory_bytes, pa.peak_memory_bytes),
           dm != 0, better(dm, false)});
    } else {
      const auto peak = [](const PlanSnapshot& s) {
        return s.fits ? bytes(s.plan.predicted.peak_memory_bytes)
                      : QString("needs %1 (short %2)")
                            .arg(bytes(s.minimum_memory_bytes), bytes(s.shortfall_bytes));
      };
      text_row("peak memory per GPU", peak(a), peak(b));
    }
    if (!comparison_.models_differ.empty()) {
      message_ = QString::fromStdString(comparison_.models_differ);
    } else if (!comparison_.both_fit) {
      message_ = !a.fits && !b.fits
                     ? QString("Neither plan fits its memory limit: no operator choices to compare.")
                     : QString(
                           "Plan %1 does not fit its memory limit, so there are no operator choices to "
                           "compare.")
                           .arg(!a.fits ? "A" : "B");
    } else {
      summary_.push_back(
          {"operators with another choice", "", "",
           QString("%1 of %2").arg(comparison_.choices_changed()).arg(comparison_.operators.size()),
           comparison_.choices_changed() > 0, 0});
    }
  }
  // Table lines: each operator, runs of identical ones folded (or, with only_changed_, left out).
  const std::vector<OperatorDifference>& ops = comparison_.operators;
  for (std::size_t i = 0; i < ops.size();) {
    if (only_changed_) {
      if (ops[i].choice_differs()) {
        lines_.push_back({i, i});
      } else {
        ++hidden_;
      }
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < ops.size() && !ops[end].any_difference()) ++end;
    if (end - i >= kFoldRun) {
      lines_.push_back({i, end - 1});
      i = end;
    } else {
      lines_.push_back({i, i});
      ++i;
    }
  }
  fit_summary_columns();
  setMinimumSize(std::max(total_width(), summary_width()) + 2 * kMargin, content_height());
  updateGeometry();
  update();
}

void CompareView::fit_summary_columns() {
  // Every value is measured in bold (the font of a value that differs), so none is cut.
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics fm(bold);
  summary_widths_ = kSummaryColumns;
  for (const SummaryRow& r : summary_) {
    const std::array<const QString*, 4> texts{&r.metric, &r.a, &r.b, &r.delta};
    for (std::size_t c = 0; c < texts.size(); ++c)
      summary_widths_[c] = std::max(summary_widths_[c], fm.horizontalAdvance(*texts[c]) + kCellPadding + 2);
  }
}

int CompareView::summary_width() const {
  return summary_widths_[0] + summary_widths_[1] + summary_widths_[2] + summary_widths_[3];
}

QStringList CompareView::summary_lines() const {
  QStringList out;
  for (const SummaryRow& r : summary_) out << r.metric + ": " + r.a + " | " + r.b + " | " + r.delta;
  return out;
}

std::vector<std::string> CompareView::highlighted_operators() const {
  std::vector<std::string> out;
  for (const Line& l : lines_) {
    if (l.first == l.last && comparison_.operators[l.first].choice_differs())
      out.push_back(comparison_.operators[l.first].name);
  }
  return out;
}

int CompareView::content_height() const {
  int h = kMargin + kLine;  // title
  if (!summary_.empty()) h += kLine * (static_cast<int>(summary_.size()) + 1) + kLine / 2;
  if (!message_.isEmpty()) h += 3 * kLine;
  if (!lines_.empty() || hidden_ > 0) h += kLine * (static_cast<int>(lines_.size()) + 3);
  return h + kMargin;
}

QSize CompareView::sizeHint() const {
  return {std::max(total_width(), summary_width()) + 2 * kMargin, content_height()};
}

void CompareView::paint(QPainter& p, int width) const {
  QFont normal = p.font();
  QFont bold = normal;
  bold.setBold(true);
  QFont italic = normal;
  italic.setItalic(true);
  // Elided with the metrics of the font it is drawn in (a bold value is wider than a normal one).
  const auto cell = [&](double x, double y, double w, const QString& text, int align = Qt::AlignLeft) {
    p.drawText(QRectF(x + kCellPadding / 2, y, w - kCellPadding, kLine), align | Qt::AlignVCenter,
               QFontMetricsF(p.font()).elidedText(text, Qt::ElideRight, w - kCellPadding));
  };
  double y = kMargin;
  p.setFont(bold);
  p.setPen(Qt::black);
  QString title = "Compare A/B";
  if (a_)
    title += QString(" — A: the %1 kept")
                 .arg(a_->label == "plan" ? "plan" : "baseline " + QString::fromStdString(a_->label));
  if (b_)
    title += QString(", B: the %1 shown now")
                 .arg(b_->label == "plan" ? "plan" : "baseline " + QString::fromStdString(b_->label));
  p.drawText(QRectF(kMargin, y, width - 2 * kMargin, kLine), Qt::AlignLeft | Qt::AlignVCenter, title);
  y += kLine;

  if (!summary_.empty()) {
    double x = kMargin;
    const QStringList heads{"", "A", "B", "B − A"};
    p.fillRect(QRectF(kMargin, y, summary_width(), kLine), kHeader);
    for (int c = 0; c < 4; ++c) {
      cell(x, y, summary_widths_[c], heads[c]);
      x += summary_widths_[c];
    }
    y += kLine;
    for (const SummaryRow& r : summary_) {
      x = kMargin;
      p.setFont(normal);
      p.setPen(Qt::black);
      cell(x, y, summary_widths_[0], r.metric);
      x += summary_widths_[0];
      p.setFont(r.differs ? bold : normal);
      cell(x, y, summary_widths_[1], r.a);
      x += summary_widths_[1];
      cell(x, y, summary_widths_[2], r.b);
      x += summary_widths_[2];
      p.setPen(r.better > 0 ? kBetter : r.better < 0 ? kWorse : QColor(Qt::black));
      cell(x, y, summary_widths_[3], r.delta);
      y += kLine;
    }
    y += kLine / 2;
  }
  p.setFont(normal);
  if (!message_.isEmpty()) {
    const QRectF box(kMargin, y + 4, width - 2 * kMargin, 2 * kLine + 8);
    p.setPen(QColor(160, 100, 0));
    p.setBrush(QColor(255, 245, 220));
    p.drawRect(box);
    p.setPen(Qt::black);
    p.drawText(box.adjusted(8, 4, -8, -4), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, message_);
    y += 3 * kLine;
  }
  if (lines_.empty() && hidden_ == 0) return;

  p.setPen(Qt::darkGray);
  p.drawText(
      QRectF(kMargin, y, width - 2 * kMargin, kLine), Qt::AlignLeft | Qt::AlignVCenter,
      "Highlighted: the scopes (DP / ZDP / PaRO), slices or checkpointing differ. Memory is resident per "
      "GPU, time the operator's share of an iteration; Δ = B − A (green lower, red higher).");
  y += kLine;
  p.fillRect(QRectF(kMargin, y, total_width(), kLine), kHeader);
  p.setFont(bold);
  p.setPen(Qt::black);
  double x = kMargin;
  for (const Column& c : kColumns) {
    cell(x, y, c.width, QString::fromUtf8(c.title));
    x += c.width;
  }
  y += kLine;
  for (const Line& l : lines_) {
    const OperatorDifference& d = comparison_.operators[l.first];
    x = kMargin;
    if (l.first != l.last) {
      p.setFont(italic);
      p.setPen(Qt::darkGray);
      cell(
          x, y, total_width(),
          QString("%1 .. %2: %3 operators with the same choice, memory and time")
              .arg(QString::fromStdString(d.name), QString::fromStdString(comparison_.operators[l.last].name))
              .arg(l.last - l.first + 1));
      y += kLine;
      continue;
    }
    if (d.choice_differs()) p.fillRect(QRectF(kMargin, y, total_width(), kLine), kChanged);
    const bool choice = d.scopes_differ || d.slices_differ;
    const std::array<QString, 11> texts{
        QString::fromStdString(d.name),
        choice_text(d.a),
        choice_text(d.b),
        yes_no(d.a.checkpoint),
        yes_no(d.b.checkpoint),
        bytes(d.memory_a_bytes),
        bytes(d.memory_b_bytes),
        d.memory_differs ? signed_bytes(d.memory_b_bytes - d.memory_a_bytes) : "",
        duration(d.seconds_a),
        duration(d.seconds_b),
        d.time_differs ? signed_duration(d.seconds_b - d.seconds_a) : ""};
    const std::array<bool, 11> strong{d.choice_differs(),
                                      choice,
                                      choice,
                                      d.checkpoint_differs,
                                      d.checkpoint_differs,
                                      d.memory_differs,
                                      d.memory_differs,
                                      false,
                                      d.time_differs,
                                      d.time_differs,
                                      false};
    const std::array<QColor, 11> colors{Qt::black,
                                        Qt::black,
                                        Qt::black,
                                        Qt::black,
                                        Qt::black,
                                        Qt::black,
                                        Qt::black,
                                        d.memory_b_bytes > d.memory_a_bytes ? kWorse : kBetter,
                                        Qt::black,
                                        Qt::black,
                                        d.seconds_b > d.seconds_a ? kWorse : kBetter};
    for (std::size_t c = 0; c < kColumns.size(); ++c) {
      p.setFont(strong[c] ? bold : normal);
      p.setPen(colors[c]);
      cell(x, y, kColumns[c].width, texts[c], c >= 5 ? Qt::AlignRight : Qt::AlignLeft);
      x += kColumns[c].width;
    }
    y += kLine;
  }
  if (hidden_ > 0) {
    p.setFont(italic);
    p.setPen(Qt::darkGray);
    cell(kMargin, y, total_width(),
         QString("%1 operator%2 with the same choice not shown").arg(hidden_).arg(hidden_ == 1 ? "" : "s"));
  }
}

void CompareView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  paint(p, width());
}

}  // namespace shardscope::gui
