// Scope and memory-category palettes (PyTorch memory-timeline categories, one distinct hue per PaRO scope).
#include "scope_colors.hpp"

#include "planner/search/search_space.hpp"

namespace shardscope::gui {

QColor replicated_color() { return QColor(205, 205, 205); }

QColor scope_color(const QString& scopes) {
  if (scopes == "NNN") return QColor(120, 120, 120);
  if (scopes == "GGG") return QColor(31, 119, 180);
  const std::vector<Scopes> all = paro_scopes();
  int index = 0;
  for (const Scopes& s : all) {
    const QString name = QString::fromStdString(s.name());
    if (name == "NNN" || name == "GGG") continue;
    if (name == scopes) break;
    ++index;
  }
  // Twelve partial scopes spread around the hue circle, away from GGG's blue.
  return QColor::fromHsv((10 + index * 27) % 360, 170 + (index % 2) * 60, 200 - (index % 3) * 30);
}

QStringList scope_legend_names() {
  QStringList out{"DP (NNN)", "ZDP (GGG)"};
  for (const Scopes& s : paro_scopes()) {
    const QString name = QString::fromStdString(s.name());
    if (name != "NNN" && name != "GGG") out << name;
  }
  return out;
}

std::vector<QColor> scope_legend_colors() {
  std::vector<QColor> out{replicated_color(), scope_color("GGG")};
  for (const Scopes& s : paro_scopes()) {
    const QString name = QString::fromStdString(s.name());
    if (name != "NNN" && name != "GGG") out.push_back(scope_color(name));
  }
  return out;
}

QStringList memory_category_names() {
  return {"parameters", "gradients", "optimizer", "activations", "gathered buffers", "workspace", "reserve"};
}

std::vector<QColor> memory_category_colors() {
  return {QColor(31, 119, 180),  QColor(255, 127, 14), QColor(44, 160, 44),  QColor(214, 39, 40),
          QColor(148, 103, 189), QColor(140, 86, 75),  QColor(127, 127, 127)};
}

}  // namespace shardscope::gui
