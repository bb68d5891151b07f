#include "view_registry.h"

#include "builtin_tabs.h"
#include "kernels_tab.h"

#include <QtGlobal>

namespace ios::gui {

#define IOS_TAB_TITLE(text) QT_TRANSLATE_NOOP("ios::gui::MainWindow", text)

const std::vector<ViewRegistration>& registeredViews() {
    using O = ViewRegistration::Overlay;
    static const std::vector<ViewRegistration> views = {
        {"graphView", IOS_TAB_TITLE("Graph"), O::Banner, &makeGraphTab},
        {"timelineView", IOS_TAB_TITLE("Timeline"), O::Cover, &makeTimelineTab},
        {"streamsView", IOS_TAB_TITLE("Streams"), O::Cover, &makeStreamsTab},
        {"stateSpaceView", IOS_TAB_TITLE("State space"), O::Cover, &makeStateSpaceTab},
        {"memoryView", IOS_TAB_TITLE("Memory"), O::Banner, &makeMemoryTab},
        {"kernelsTab", IOS_TAB_TITLE("Kernels"), O::Cover, &KernelsTab::create},
        {"comparisonTab", IOS_TAB_TITLE("Comparison"), O::None, &makeComparisonTab},
        {"sweepTab", IOS_TAB_TITLE("Sweep"), O::None, &makeSweepTab},
        {"specializeTab", IOS_TAB_TITLE("Specialize"), O::None, &makeSpecializeTab},
        {"metaflowTab", IOS_TAB_TITLE("MetaFlow"), O::None, &makeMetaflowTab},
    };
    return views;
}

} // namespace ios::gui
