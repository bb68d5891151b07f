// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the measurement-cache loader (cost/measurement_cache.h): any input
// either loads or throws ios::UserError. Every entry of a loaded cache must be found again
// under its key with a latency in (0, kMaxStageLatencyMs], the cache must write back to text
// that loads to the same cache (a UserError there escapes: a finding), and a cost model
// replaying it is either built or refused with a UserError.
#include "cost/cost_model.h"
#include "cost/measurement_cache.h"
#include "util/error.h"

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    ios::cost::MeasurementCache cache;
    try {
        cache = ios::cost::MeasurementCache::parse(text, "fuzz");
    } catch (const ios::UserError&) {
        return 0; // rejected with a message: the expected outcome for malformed input
    }
    for (const ios::cost::StageMeasurement& m : cache.entries()) {
        const auto found = cache.find(m.device, m.model, m.batch, m.stage);
        if (!found || *found != m.latencyMs || m.batch < 1 || m.stage.empty() ||
            !(m.latencyMs > 0 && m.latencyMs <= ios::cost::kMaxStageLatencyMs))
            std::abort(); // an entry that is lost or out of range is a finding
    }
    const std::string written = cache.text();
    if (ios::cost::MeasurementCache::parse(written, "fuzz-rewritten").text() != written)
        std::abort(); // a round trip that changes the cache is a finding
    if (!cache.entries().empty()) {
        const ios::cost::StageMeasurement& first = cache.entries().front();
        try {
            const ios::cost::CachedCostModel model(cache, first.model, first.batch, {}, "fuzz");
            if (model.describe().empty())
                std::abort();
        } catch (const ios::UserError&) {
            // Several devices for this model and batch: refused with a message.
        }
    }
    return 0;
}
