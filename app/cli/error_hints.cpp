// SPDX-License-Identifier: Apache-2.0
#include "error_hints.h"

namespace ios::cli {

std::string cliHintText(Hint hint) {
    switch (hint) {
    case Hint::None:
        return {};
    case Hint::AllowOpaque:
        return " (pass --allow-opaque to import them as opaque operators)";
    case Hint::InputShape:
        return " (pass --input-shape NxCxHxW, or NxTxD for a token sequence)";
    case Hint::LowerPartSize:
        return " (lower --max-part-size)";
    case Hint::ExplicitParts:
        return " (--max-part-size does not apply to explicit parts)";
    case Hint::LowerBatch:
        return " (lower --batch or --bytes-per-element)";
    case Hint::ChooseCostModel:
        return " (--cost-model)";
    case Hint::MeasureOnGpu:
        return " (measure with --cost-model measured on a GPU)";
    case Hint::ChooseCacheDevice:
        return " (with --cost-model cache:FILE@DEVICE)";
    case Hint::RaiseBudget:
        return " (raise --memory-budget)";
    case Hint::StoreFallback:
        return " (--store-fallback simulated prices such stages on the simulated GPU)";
    case Hint::CudaBackend:
        return " (IOS_PROFILING_MOCK=1 runs it on the timing-only mock device instead)";
    }
    return {};
}

} // namespace ios::cli
