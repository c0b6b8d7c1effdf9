// ComparePanel: the "Compare A/B" tab — Keep as A, Clear A, "only changed operators", and the CompareView
// (in a scroll area). The main window supplies the snapshots: A when asked to keep, B on every new plan.
#pragma once

#include <QWidget>

#include "present/plan_compare.hpp"

class QCheckBox;
class QPushButton;

namespace shardscope::gui {

class CompareView;

class ComparePanel : public QWidget {
  Q_OBJECT
 public:
  explicit ComparePanel(QWidget* parent = nullptr);

  CompareView* view() const { return view_; }
  QPushButton* keep_button() const { return keep_; }
  QPushButton* clear_button() const { return clear_; }
  QCheckBox* only_changed_box() const { return only_changed_; }

  void keep(std::optional<present::PlanSnapshot> a);  // A (and B, the same plan, until the next re-plan)
  void clear();                                       // forgets A
  void show_b(std::optional<present::PlanSnapshot> b);
  bool has_a() const;

 signals:
  void keepRequested();

 private:
  CompareView* view_ = nullptr;
  QPushButton* keep_ = nullptr;
  QPushButton* clear_ = nullptr;
  QCheckBox* only_changed_ = nullptr;
};

}  // namespace shardscope::gui
