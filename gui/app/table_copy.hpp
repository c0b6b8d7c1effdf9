// Copying from a table or tree view: its selected rows as tab-separated text, and Ctrl+C doing that.
#pragma once

#include <QString>

class QAbstractItemView;

namespace shardscope::gui {

// The selected rows of `view`, in the view's order (a child after its parent), one line each: the display
// texts of every column, separated by tabs. Empty when nothing is selected.
QString selected_rows_text(const QAbstractItemView* view);

// Ctrl+C (QKeySequence::Copy) on `view` puts selected_rows_text on the clipboard.
void add_copy_action(QAbstractItemView* view);

}  // namespace shardscope::gui
