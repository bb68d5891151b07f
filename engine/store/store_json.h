// SPDX-License-Identifier: Apache-2.0
// The measurement store as a JSON document (docs/formats.md "Measurement store", "JSON
// form"): the interchange and archive form of any backend, written deterministically — two
// stores holding the same samples export byte-identical files, so "4 merged shards equal one
// process" is a file comparison — and imported back losslessly. Also the import of legacy
// measurement caches (cost/measurement_cache.h), whose entries name stages by operator names
// in a model: they are resolved in that model and stored by signature.
//
// Trust: a store is data the tool wrote; a JSON file may come from anywhere, so every field
// is validated before anything is added (a bad file adds nothing). Files are read
// incrementally (json_elements.h): any size, bounded memory, no input cap.
#pragma once

#include "ir/graph.h"
#include "store/measurement_store.h"
#include "util/error.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>

namespace ios::store {

inline constexpr const char* kStoreJsonFormat = "ios-explorer-measurement-store";
inline constexpr int kStoreJsonVersion = 1;

struct JsonCounts {
    int64_t samples = 0;   // samples written / read
    int64_t added = 0;     // import: samples new to the store
    int64_t operators = 0; // export: distinct operator signatures
    int64_t devices = 0;   // export: distinct device identities
};

// Writes the whole store: header, operator signatures (hex, sorted, each once), device
// identities (sorted by canonical text), then the samples in the store's canonical order,
// one per line. Two passes over store.forEach; memory holds the operators and devices only.
JsonCounts exportStoreJson(MeasurementStore& store, std::ostream& out);

// A legacy cache names its models; the importer asks for each model's graph (validated,
// alive until the import returns) by name. nullptr: the model is unknown, and the import
// fails naming it (ModelNotFound, so a front end can say how to supply it).
using ModelResolver = std::function<const ir::Graph*(const std::string& modelName)>;

// A legacy entry whose model the resolver does not know.
class ModelNotFound : public UserError {
public:
    ModelNotFound(const std::string& model, const std::string& where, const std::string& file)
        : UserError(where + ": model '" + model +
                        "' is neither a bundled model nor a model file given to the import "
                        "(its stage keys name operators of that model)",
                    file),
          model_(model) {}
    const std::string& model() const { return model_; }

private:
    std::string model_;
};

// Imports `file` into `store`: a store export ("format": kStoreJsonFormat) or a legacy
// measurement cache ("ios-explorer-measurements", whose models `resolve` supplies; each entry
// becomes one sample: device identity of its device name only — legacy caches recorded
// nothing else — dtype fp32, spread 0, count its "samples" or 1, tool version
// "legacy-cache", time 0). The file is validated in full first (UserError naming the file and
// the entry), then added in transactions of at most 10 000 samples: a killed import leaves a
// part, which re-running completes (add is idempotent).
JsonCounts importStoreJson(const std::filesystem::path& file, MeasurementStore& store,
                           const ModelResolver& resolve = {});

// The validating pass alone (samples counted, nothing added): a front end checks a file
// before it creates the store, then imports with `checked` set to skip this pass.
JsonCounts checkStoreJson(const std::filesystem::path& file, const ModelResolver& resolve = {});
JsonCounts importStoreJson(const std::filesystem::path& file, MeasurementStore& store,
                           const ModelResolver& resolve, bool checked);

} // namespace ios::store
