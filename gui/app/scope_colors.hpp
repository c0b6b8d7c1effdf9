// Colours of sharding scopes (DP = NNN, ZDP = GGG, each PaRO partial scope its own hue) and memory
// categories.
#pragma once

#include <QColor>
#include <QString>
#include <QStringList>
#include <vector>

namespace shardscope::gui {

QColor scope_color(const QString& scopes);  // "NNN", "GGG", "IIG", ...
QColor replicated_color();                  // slices that are not sharded
QStringList scope_legend_names();           // "DP (NNN)", "ZDP (GGG)", the other 12 PaRO scopes
std::vector<QColor> scope_legend_colors();

QStringList memory_category_names();
std::vector<QColor> memory_category_colors();

}  // namespace shardscope::gui
