// SPDX-License-Identifier: Apache-2.0
// Attention computed by hand from the reference executor's tensors, softmax(scale·q·kᵀ +
// added)·v per window and head, against the IR's result: what the ONNX attention suites check.
#pragma once

#include "ref/reference_executor.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

namespace ios::test {

// Channel-major tensors (channel c at position p is data[c · positions + p]); head h of q is
// channels qOffset + h·d … + d − 1 (likewise k and v); position w·tokens + i is token i of
// window w.
struct AttentionCheck {
    const ref::Tensor* q = nullptr;
    int64_t qOffset = 0;
    const ref::Tensor* k = nullptr;
    int64_t kOffset = 0;
    const ref::Tensor* v = nullptr;
    int64_t vOffset = 0;
    const ref::Tensor* out = nullptr; // channel h·d + e: head h's output
    int64_t heads = 1, d = 1, windows = 1, tokens = 1;
    double scale = 1.0;
};

// The largest difference between `out` and the attention; `added(w, h, i, j)` is added to
// the score of query i and key j (a bias, a mask), none when empty.
inline double
attentionError(const AttentionCheck& c,
               const std::function<double(int64_t, int64_t, int64_t, int64_t)>& added = {}) {
    const int64_t positions = c.windows * c.tokens;
    const auto at = [&](const ref::Tensor& t, int64_t ch, int64_t p) {
        return t.data[static_cast<size_t>(ch * positions + p)];
    };
    double worst = 0;
    for (int64_t w = 0; w < c.windows; ++w)
        for (int64_t h = 0; h < c.heads; ++h)
            for (int64_t i = 0; i < c.tokens; ++i) {
                std::vector<double> s(static_cast<size_t>(c.tokens));
                double peak = -1e300, sum = 0;
                for (int64_t j = 0; j < c.tokens; ++j) {
                    double& x = s[static_cast<size_t>(j)];
                    for (int64_t e = 0; e < c.d; ++e)
                        x += c.scale * at(*c.q, c.qOffset + h * c.d + e, w * c.tokens + i) *
                             at(*c.k, c.kOffset + h * c.d + e, w * c.tokens + j);
                    x += added ? added(w, h, i, j) : 0.0;
                    peak = std::max(peak, x);
                }
                for (double& x : s)
                    sum += (x = std::exp(x - peak));
                for (int64_t e = 0; e < c.d; ++e) {
                    double want = 0;
                    for (int64_t j = 0; j < c.tokens; ++j)
                        want += s[static_cast<size_t>(j)] / sum *
                                at(*c.v, c.vOffset + h * c.d + e, w * c.tokens + j);
                    worst =
                        std::max(worst, std::abs(at(*c.out, h * c.d + e, w * c.tokens + i) - want));
                }
            }
    return worst;
}

} // namespace ios::test
