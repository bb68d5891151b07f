// SPDX-License-Identifier: Apache-2.0
#include "selection.h"

namespace ios::gui {

void Selection::select(std::vector<int> operators, std::vector<int> stageContext, Source source) {
    if (operators == operators_ && stageContext == stageContext_ && source == source_)
        return;
    operators_ = std::move(operators);
    stageContext_ = std::move(stageContext);
    source_ = source;
    Q_EMIT changed();
}

void Selection::clear() {
    if (operators_.empty() && stageContext_.empty())
        return;
    operators_.clear();
    stageContext_.clear();
    source_ = Source::None;
    Q_EMIT changed();
}

} // namespace ios::gui
