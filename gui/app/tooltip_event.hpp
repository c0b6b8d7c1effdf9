// The views' shared tooltip handling: on a tooltip event, show the text for the pointer's position (or hide
// the tooltip where there is none).
#pragma once

#include <QHelpEvent>
#include <QToolTip>
#include <QWidget>

namespace shardscope::gui {

// True when `event` was a tooltip event (handled); `text_at` gives the text for a widget position.
template <typename TextAt>
bool handle_tooltip_event(QWidget* widget, QEvent* event, TextAt text_at) {
  if (event->type() != QEvent::ToolTip) return false;
  auto* help = static_cast<QHelpEvent*>(event);
  const QString text = text_at(help->pos());
  if (text.isEmpty()) {
    QToolTip::hideText();
    event->ignore();
  } else {
    QToolTip::showText(help->globalPos(), text, widget);
  }
  return true;
}

}  // namespace shardscope::gui
