// SPDX-License-Identifier: Apache-2.0
// A command's --json output as a QJsonObject (empty when it is not one JSON object).
#pragma once

#include <QJsonDocument>
#include <QJsonObject>
#include <string>

namespace ios::testing {

inline QJsonObject jsonObject(const std::string& text) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    return error.error == QJsonParseError::NoError && doc.isObject() ? doc.object() : QJsonObject();
}

} // namespace ios::testing
