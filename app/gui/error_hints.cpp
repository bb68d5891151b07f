// SPDX-License-Identifier: Apache-2.0
#include "error_hints.h"

#include <QObject>

namespace ios::gui {

QString guiHintText(Hint hint) {
    switch (hint) {
    case Hint::None:
        return {};
    case Hint::AllowOpaque:
        return QObject::tr(" (open it with File ▸ Import Unsupported ONNX Operators as Opaque to "
                           "import them as opaque operators)");
    case Hint::InputShape:
        return QObject::tr(" (export the model with a fixed input shape)");
    case Hint::LowerPartSize:
        return QObject::tr(" (lower Max part size in the settings)");
    case Hint::ExplicitParts:
        return QObject::tr(" (Max part size does not apply to explicit parts)");
    case Hint::LowerBatch:
        return QObject::tr(" (lower Batch size in the settings)");
    case Hint::ChooseCostModel:
        return QObject::tr(" (choose another Cost model in the settings)");
    case Hint::MeasureOnGpu:
        return QObject::tr(" (measure the stages on a GPU: ios-sched measure)");
    case Hint::ChooseCacheDevice:
        return QObject::tr(" (append @DEVICE to the measurements' file name in the settings)");
    case Hint::RaiseBudget:
        return QObject::tr(" (raise Memory budget in the settings)");
    case Hint::StoreFallback:
        return QObject::tr(" (tick Simulate stages the store lacks in the settings)");
    case Hint::CudaBackend:
        return QObject::tr(" (choose a simulated Cost model in the settings)");
    }
    return {};
}

QString forGuiUsers(const UserError& error) {
    return QString::fromStdString(error.what()) + guiHintText(error.hint());
}

} // namespace ios::gui
