// SPDX-License-Identifier: Apache-2.0
#include "view_registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ios::gui {

namespace {

std::vector<ViewRegistration>& registry() {
    static std::vector<ViewRegistration> views;
    return views;
}

} // namespace

bool registerView(const ViewRegistration& view) {
    std::vector<ViewRegistration>& views = registry();
    for (const ViewRegistration& other : views)
        if (std::strcmp(other.key, view.key) == 0 || other.rank == view.rank) {
            std::fprintf(stderr, "ios-explorer: views '%s' and '%s' share a key or rank (%d)\n",
                         other.key, view.key, view.rank);
            std::abort();
        }
    const auto at = std::find_if(views.begin(), views.end(),
                                 [&](const ViewRegistration& v) { return v.rank > view.rank; });
    views.insert(at, view);
    return true;
}

const std::vector<ViewRegistration>& registeredViews() {
    return registry();
}

} // namespace ios::gui
