// SPDX-License-Identifier: Apache-2.0
// The reference executor suites' measure of how far a tensor is from the reference one.
#pragma once

#include "ref/reference_executor.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ios::testing {

// max |a − b| / max |b|: the error relative to the reference output's magnitude (+inf when
// the shapes differ).
inline double tensorRelativeError(const ref::Tensor& a, const ref::Tensor& b) {
    if (a.shape != b.shape)
        return std::numeric_limits<double>::infinity();
    double diff = 0, scale = 0;
    for (size_t i = 0; i < a.data.size(); ++i) {
        diff = std::max(diff, std::abs(a.data[i] - b.data[i]));
        scale = std::max(scale, std::abs(b.data[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

} // namespace ios::testing
