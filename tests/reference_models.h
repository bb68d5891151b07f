// SPDX-License-Identifier: Apache-2.0
// Where the IOS authors' exported reference models are (optional, not part of the repository):
// the folder named by the environment variable IOS_REFERENCE_MODELS_DIR when the test runs,
// else the CMake cache variable of the same name (tests/CMakeLists.txt). The tests that
// compare against those files QSKIP when neither names an existing folder.
#pragma once

#include <QDir>
#include <QString>
#include <QtGlobal>

namespace ios::testing {

// The reference models folder, or an empty string when it is not available.
inline QString referenceModelsDir() {
    QString dir = qEnvironmentVariable("IOS_REFERENCE_MODELS_DIR");
    if (dir.isEmpty())
        dir = QStringLiteral(IOS_REFERENCE_MODELS_DIR);
    return !dir.isEmpty() && QDir(dir).exists() ? dir : QString();
}

} // namespace ios::testing
