// Painting, hit tests, tooltips and the pin menu of the operator view.
#include "operator_view.hpp"

#include <QContextMenuEvent>
#include <QHelpEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QToolTip>

#include "chart/chart.hpp"
#include "planner/core/units.hpp"
#include "planner/search/search_space.hpp"
#include "scope_colors.hpp"
#include "tooltip_event.hpp"

namespace shardscope::gui {
namespace {

constexpr int kName = 8, kCount = 270, kBar = 320, kCkpt = 540, kMemory = 580, kTime = 690, kPin = 790;

QString bytes(double b) { return QString::fromStdString(units::format_bytes(b)); }
QString duration(double s) { return QString::fromStdString(units::format_duration(s)); }

}  // namespace

OperatorView::OperatorView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumWidth(kPin + 60);
  setBackgroundRole(QPalette::Base);
  setAutoFillBackground(true);
}

void OperatorView::clear_plan() {
  plan_ = Plan{};
  costs_.clear();
  groups_.clear();
  rows_.clear();
  setMinimumHeight(kHeaderHeight);
  update();
}

void OperatorView::set_plan(const Scenario& scenario, const Plan& plan,
                            const std::vector<OperatorCost>& costs, const std::vector<OperatorPin>& pins) {
  // Keep which groups were open, by their first operator's name.
  std::vector<std::string> open;
  for (const Group& g : groups_) {
    if (g.expanded) open.push_back(plan_.operators[g.members.front()].name);
  }
  scenario_ = scenario;
  plan_ = plan;
  costs_ = costs;
  pins_ = pins;
  groups_.clear();
  // Operators with the same kind, choice and cost (repeated layers) share one row, as in `shardscope plan`.
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const OperatorChoice& c = plan.operators[i];
    const ItemCost& cost = costs[i].cost;
    const OperatorKind kind = scenario.model.operators[i].kind;
    bool placed = false;
    for (Group& g : groups_) {
      const std::size_t j = g.members.front();
      const OperatorChoice& d = plan.operators[j];
      if (scenario.model.operators[j].kind == kind && choice_text(d) == choice_text(c) &&
          d.checkpoint == c.checkpoint && costs[j].cost.seconds == cost.seconds &&
          costs[j].cost.resident_bytes == cost.resident_bytes) {
        g.members.push_back(i);
        placed = true;
        break;
      }
    }
    if (!placed) groups_.push_back({{i}, false});
  }
  for (Group& g : groups_) {
    g.expanded = std::find(open.begin(), open.end(), plan_.operators[g.members.front()].name) != open.end();
  }
  rebuild_rows();
}

void OperatorView::rebuild_rows() {
  rows_.clear();
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    rows_.push_back({g, -1});
    if (groups_[g].expanded && groups_[g].members.size() > 1) {
      for (std::size_t m = 0; m < groups_[g].members.size(); ++m) rows_.push_back({g, static_cast<int>(m)});
    }
  }
  setMinimumHeight(kHeaderHeight + kRowHeight * static_cast<int>(rows_.size()) + 8);
  updateGeometry();
  update();
}

void OperatorView::set_expanded(std::size_t group, bool expanded) {
  if (group >= groups_.size()) return;
  groups_[group].expanded = expanded;
  rebuild_rows();
}

const OperatorChoice& OperatorView::shown_choice(std::size_t index) const {
  for (const Group& g : groups_) {
    for (std::size_t m : g.members) {
      if (m == index) return g.expanded ? plan_.operators[index] : plan_.operators[g.members.front()];
    }
  }
  return plan_.operators.at(index);
}

std::vector<std::size_t> OperatorView::row_operators(int row) const {
  if (row < 0 || row >= static_cast<int>(rows_.size())) return {};
  const Row& r = rows_[static_cast<std::size_t>(row)];
  const Group& g = groups_[r.group];
  if (r.member >= 0) return {g.members[static_cast<std::size_t>(r.member)]};
  return g.members;
}

int OperatorView::row_at(int y) const {
  if (y < kHeaderHeight) return -1;
  const int row = (y - kHeaderHeight) / kRowHeight;
  return row < static_cast<int>(rows_.size()) ? row : -1;
}

void OperatorView::paint_rows(QPainter& p, int width, int first, int last) const {
  QFont bold = p.font();
  bold.setBold(true);
  const QFont normal = p.font();
  p.fillRect(QRect(0, 0, width, kHeaderHeight), QColor(240, 240, 240));
  QStringList names = scope_legend_names();
  std::vector<QColor> colors = scope_legend_colors();
  names << "checkpointed";
  colors.push_back(QColor(230, 140, 0));
  chart::draw_legend(p, QPointF(kName, 4), names, colors, width - 2 * kName);
  p.setFont(bold);
  const int titles = kHeaderHeight - 24;
  const auto header = [&](int x, int w, const QString& text) {
    p.drawText(QRect(x, titles, w, 24), Qt::AlignVCenter | Qt::AlignLeft, text);
  };
  header(kName, kCount - kName, "operator");
  header(kCount, kBar - kCount, "count");
  header(kBar, kCkpt - kBar, "slices: k of g sharded");
  header(kCkpt, kMemory - kCkpt, "ckpt");
  header(kMemory, kTime - kMemory, "memory/GPU");
  header(kTime, kPin - kTime, "time");
  header(kPin, 80, "pin");
  p.setFont(normal);
  for (int row = first; row < last && row < static_cast<int>(rows_.size()); ++row) {
    const Row& r = rows_[static_cast<std::size_t>(row)];
    const Group& g = groups_[r.group];
    const std::size_t op = r.member >= 0 ? g.members[static_cast<std::size_t>(r.member)] : g.members.front();
    const OperatorChoice& c = plan_.operators[op];
    const int y = kHeaderHeight + row * kRowHeight;
    if (row % 2 == 1) p.fillRect(QRect(0, y, width, kRowHeight), QColor(248, 248, 252));
    QString name = QString::fromStdString(c.name);
    if (r.member < 0 && g.members.size() > 1) {
      name = QString(g.expanded ? "▾ " : "▸ ") + name + " .. " +
             QString::fromStdString(plan_.operators[g.members.back()].name);
    } else if (r.member >= 0) {
      name = "      " + name;
    }
    p.setPen(Qt::black);
    p.drawText(QRect(kName, y, kCount - kName - 6, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(name, Qt::ElideMiddle, kCount - kName - 6));
    if (r.member < 0) {
      p.drawText(QRect(kCount, y, 40, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                 QString::number(g.members.size()));
    }
    // g slices, the first k sharded (coloured by scope), the rest replicated.
    const int bar_width = kCkpt - kBar - 16;
    const double slice = static_cast<double>(bar_width) / c.slices;
    for (int s = 0; s < c.slices; ++s) {
      const QRectF box(kBar + s * slice, y + 4, slice - 1, kRowHeight - 8);
      p.fillRect(box, s < c.sharded_slices ? scope_color(QString::fromStdString(c.scopes.name()))
                                           : replicated_color());
    }
    p.setPen(c.sharded_slices > 0 && c.sharded_slices == c.slices ? Qt::white : Qt::black);
    p.drawText(QRect(kBar + 4, y, bar_width, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, choice_text(c));
    p.setPen(Qt::black);
    if (c.checkpoint) {
      p.setBrush(QColor(230, 140, 0));
      p.setPen(Qt::NoPen);
      p.drawEllipse(QPointF(kCkpt + 10, y + kRowHeight / 2.0), 5, 5);
      p.setBrush(Qt::NoBrush);
      p.setPen(Qt::black);
    }
    p.drawText(QRect(kMemory, y, 100, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
               bytes(costs_[op].cost.resident_bytes));
    p.drawText(QRect(kTime, y, 100, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
               duration(costs_[op].cost.seconds));
    bool pinned = false;
    for (std::size_t m : row_operators(row)) {
      for (const OperatorPin& pin : pins_) pinned = pinned || pin.operator_index == m;
    }
    if (pinned) {
      p.setPen(QColor(180, 0, 0));
      p.drawText(QRect(kPin, y, 60, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, "● pinned");
      p.setPen(Qt::black);
    }
  }
}

void OperatorView::paintEvent(QPaintEvent* event) {
  QPainter p(this);
  if (rows_.empty()) {
    p.drawText(rect(), Qt::AlignCenter, "no plan yet");
    return;
  }
  // Only the exposed rows are painted: thousands of operators cost one screenful.
  const int first = std::max(0, (event->rect().top() - kHeaderHeight) / kRowHeight);
  const int last =
      std::min(static_cast<int>(rows_.size()), (event->rect().bottom() - kHeaderHeight) / kRowHeight + 2);
  p.setClipRect(event->rect());
  paint_rows(p, width(), first, last);
}

void OperatorView::mousePressEvent(QMouseEvent* event) {
  const int row = row_at(static_cast<int>(event->position().y()));
  if (event->button() != Qt::LeftButton || row < 0) return;
  const Row& r = rows_[static_cast<std::size_t>(row)];
  if (r.member < 0 && groups_[r.group].members.size() > 1) set_expanded(r.group, !groups_[r.group].expanded);
}

QString OperatorView::tooltip_for_row(int row) const {
  const std::vector<std::size_t> ops = row_operators(row);
  if (ops.empty()) return {};
  const std::size_t op = ops.front();
  const OperatorChoice& c = plan_.operators[op];
  const OperatorCost& cost = costs_[op];
  const MemoryBreakdown& m = cost.memory;
  QString text = QString("<b>%1</b>%2<br>choice %3, %4 slice(s), %5 sharded%6<br>")
                     .arg(QString::fromStdString(c.name))
                     .arg(ops.size() > 1 ? QString(" and %1 more").arg(ops.size() - 1) : QString())
                     .arg(choice_text(c))
                     .arg(c.slices)
                     .arg(c.sharded_slices)
                     .arg(c.checkpoint ? ", checkpointed" : "");
  text += QString(
              "time %1 per iteration<br>resident %2 per GPU: parameters %3, gradients %4, optimizer %5, "
              "activations %6<br>while running: gathered %7, workspace %8")
              .arg(duration(cost.cost.seconds), bytes(cost.cost.resident_bytes), bytes(m.parameter_bytes),
                   bytes(m.gradient_bytes), bytes(m.optimizer_bytes), bytes(m.activation_bytes),
                   bytes(m.gathered_bytes), bytes(m.workspace_bytes));
  return text;
}

bool OperatorView::event(QEvent* event) {
  return handle_tooltip_event(this, event, [this](QPoint p) { return tooltip_for_row(row_at(p.y())); }) ||
         QWidget::event(event);
}

std::vector<OperatorPin> OperatorView::pins_for_row(int row, const OperatorPin& shape) const {
  std::vector<OperatorPin> out;
  for (std::size_t op : row_operators(row)) {
    OperatorPin pin = shape;
    pin.operator_index = op;
    out.push_back(pin);
  }
  return out;
}

void OperatorView::contextMenuEvent(QContextMenuEvent* event) {
  const int row = row_at(event->pos().y());
  if (row < 0) return;
  const OperatorChoice& current = plan_.operators[row_operators(row).front()];
  QMenu menu(this);
  const auto offer = [&](QMenu* into, const QString& label, const OperatorPin& shape) {
    into->addAction(label, this, [this, row, shape] { emit pinsRequested(pins_for_row(row, shape)); });
  };
  OperatorPin keep;  // the current choice, exactly
  keep.scopes = current.sharded_slices > 0 ? std::optional<Scopes>(current.scopes) : std::nullopt;
  keep.replicated = current.sharded_slices == 0;
  keep.slices = current.slices;
  keep.sharded_slices = current.sharded_slices;
  keep.checkpoint = current.checkpoint;
  offer(&menu, "Pin this choice (" + choice_text(current) + ")", keep);
  offer(&menu, "Pin DP (replicated)", dp_pin(0));
  offer(&menu, "Pin ZDP (GGG, every slice)", zdp_pin(0));
  QMenu* scopes = menu.addMenu("Pin scope");
  for (const Scopes& s : paro_scopes()) {
    if (s.name() == "NNN") continue;
    OperatorPin pin;
    pin.scopes = s;
    offer(scopes, QString::fromStdString(s.name()), pin);
  }
  QMenu* slices = menu.addMenu("Pin slices");
  for (int g : scenario_.training.slice_granularities) {
    for (int k = 0; k <= g; ++k) {
      OperatorPin pin;
      pin.slices = g;
      pin.sharded_slices = k;
      offer(slices, QString("%1 of %2 sharded").arg(k).arg(g), pin);
    }
  }
  QMenu* ckpt = menu.addMenu("Pin checkpoint");
  OperatorPin on, off;
  on.checkpoint = true;
  off.checkpoint = false;
  offer(ckpt, "checkpointed", on);
  offer(ckpt, "not checkpointed", off);
  menu.addSeparator();
  menu.addAction("Unpin", this, [this, row] { emit pinsCleared(row_operators(row)); });
  menu.exec(event->globalPos());
}

}  // namespace shardscope::gui
