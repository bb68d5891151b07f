// SPDX-License-Identifier: Apache-2.0
// Exports from the GUI, through the engine's writers (atomic): the schedule (IOS JSON with
// merged convolutions as IOS writes it, or native JSON with stages), the simulated trace
// (Chrome trace JSON or CSV), and a picture of a view (SVG via Qt SVG, PNG).
#pragma once

#include "io/provenance.h"
#include "job.h"

#include <QString>
#include <QStringList>

class QWidget;

namespace ios::gui {

// What the Open Model dialog offers: IOS JSON, native JSON and ONNX models, or any file.
QString modelFileFilter();

// The suffixes of a dialog filter, "IOS JSON (*.ios.json)" → {".ios.json"}, in order.
QStringList filterSuffixes(const QString& filter);

// `path` as typed in a save dialog: when it ends in none of `selectedFilter`'s suffixes, the
// filter's first suffix is appended ("schedule" with "IOS JSON (*.ios.json)" →
// "schedule.ios.json"). A suffix of any filter in `allFilters` (the dialog's ";;"-separated
// list) is kept: "x.png" typed under "SVG (*.svg)" stays "x.png", never "x.png.svg".
QString withFilterSuffix(const QString& path, const QString& selectedFilter,
                         const QString& allFilters = {});

// The provenance of what the explorer writes for `settings` (io/provenance.h): `action` names
// the export ("ios-explorer: export schedule"), `graph` the model written.
io::Provenance exportProvenance(const JobSettings& settings, const QString& action,
                                const ir::Graph& graph);

// By extension: ".ios.json" → IOS JSON (merges as merged nodes), ".json" → native with
// merge_stages (io::writeNativeSchedule). Throws ios::UserError. What the format could not
// express (in-place terms, explicit parts in IOS JSON) is appended to `warnings`.
void exportSchedule(const SearchResult& result, const QString& path,
                    QStringList* warnings = nullptr);
// By extension: ".csv" → CSV, else Chrome trace JSON. Throws ios::UserError.
void exportTrace(const SearchResult& result, const QString& path);
// ".svg" → vector drawing of the whole view, else a PNG. Throws ios::UserError.
void exportPicture(QWidget* view, const QString& path);

} // namespace ios::gui
