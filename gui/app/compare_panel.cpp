// The Compare A/B tab's buttons around the CompareView.
#include "compare_panel.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "compare_view.hpp"

namespace shardscope::gui {

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* row = new QHBoxLayout;
  keep_ = new QPushButton("Keep as A");
  keep_->setToolTip("Freeze the plan shown now as A (Ctrl+K); later plans are compared with it as B");
  clear_ = new QPushButton("Clear A");
  clear_->setEnabled(false);
  only_changed_ = new QCheckBox("Only operators whose choice differs");
  row->addWidget(keep_);
  row->addWidget(clear_);
  row->addWidget(only_changed_);
  row->addStretch(1);
  layout->addLayout(row);
  view_ = new CompareView;
  auto* scroll = new QScrollArea;
  scroll->setWidget(view_);
  scroll->setWidgetResizable(true);
  layout->addWidget(scroll, 1);
  connect(keep_, &QPushButton::clicked, this, &ComparePanel::keepRequested);
  connect(clear_, &QPushButton::clicked, this, &ComparePanel::clear);
  connect(only_changed_, &QCheckBox::toggled, view_, &CompareView::set_only_changed);
}

void ComparePanel::keep(std::optional<present::PlanSnapshot> a) {
  if (!a) return;
  view_->set_b(a);
  view_->set_a(std::move(a));
  clear_->setEnabled(true);
}

void ComparePanel::clear() {
  view_->set_a(std::nullopt);
  clear_->setEnabled(false);
}

void ComparePanel::show_b(std::optional<present::PlanSnapshot> b) { view_->set_b(std::move(b)); }

bool ComparePanel::has_a() const { return view_->a().has_value(); }

}  // namespace shardscope::gui
