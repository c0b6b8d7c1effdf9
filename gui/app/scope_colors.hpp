// Colours of sharding scopes (DP = NNN, ZDP = GGG, each PaRO partial scope its own hue) and memory
// categories.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <vector>

#include "planner/core/plan.hpp"

namespace shardscope::gui {

QColor scope_color(const QString& scopes);  // "NNN", "GGG", "IIG", ...
QColor replicated_color();                  // slices that are not sharded
QStringList scope_legend_names();           // "DP (NNN)", "ZDP (GGG)", the other 12 PaRO scopes
std::vector<QColor> scope_legend_colors();
QString choice_text(const OperatorChoice& c);  // as the CLI's table: "NNN (DP)", "GGG 4/8", "GGG+hpZ"

QStringList memory_category_names();
std::vector<QColor> memory_category_colors();

}  // namespace shardscope::gui
