#include "view_registry.h"

#include "kernels_tab.h"

#include <QtGlobal>

namespace ios::gui {

const std::vector<ViewRegistration>& registeredViews() {
    static const std::vector<ViewRegistration> views = {
        {"kernelsTab", QT_TRANSLATE_NOOP("ios::gui::MainWindow", "Kernels"),
         QT_TRANSLATE_NOOP("ios::gui::MainWindow",
                           "Kernel summary of the shown result: per kernel or operator type, "
                           "count, total and mean time, share of all kernel time"),
         StaleOverlay::Mode::Cover, &KernelsTab::create},
    };
    return views;
}

} // namespace ios::gui
