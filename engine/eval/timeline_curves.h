// SPDX-License-Identifier: Apache-2.0
// The timeline's utilisation curves reduced to one bucket per pixel (min, max and time-weighted
// mean), so a 1 500-kernel model's curve draws as a readable band instead of thousands of steps
// that alias into noise; and the flows between dependent kernels on different streams (Nsight
// Systems' and Perfetto's flow arrows).
#pragma once

#include "eval/timeline.h"
#include "ir/block_dag.h"

#include <vector>

namespace ios::eval {

enum class TimelineCurve { ActiveSms, WarpOccupancy, FlopUtilisation };

// The curve's value of a sample in [0, 1] (active SMs as a fraction of smCount).
double curveValue(const Timeline& timeline, const TimelineSample& sample, TimelineCurve curve);

struct CurveBucket {
    double startUs = 0;
    double endUs = 0;
    double min = 0;
    double max = 0;
    double mean = 0; // time-weighted over the bucket
};

// [t0, t1) cut into `buckets` equal buckets. The curve is piecewise constant (each sample holds
// until the next, the last until timelineEndUs) and zero outside the timeline. min and max are
// over the values held for a positive time in the bucket. Empty for buckets < 1 or t1 ≤ t0.
std::vector<CurveBucket> decimateCurve(const Timeline& timeline, TimelineCurve curve, double t0,
                                       double t1, int buckets);

// A dependency drawn between streams: the last kernel of operator u (the one ending last) to
// the first kernel of a consumer v (the one starting first), indices into timeline.kernels.
struct KernelFlow {
    int from = 0;
    int to = 0;
    friend bool operator==(const KernelFlow&, const KernelFlow&) = default;
};

// One flow per DAG edge u → v of a block (dags[block].succs) whose two kernels run on different
// streams; edges within one stream are implied by issue order and are left out, as are
// operators without kernels (op = -1: a trace's unlinked kernels). Sorted by (from, to).
std::vector<KernelFlow> kernelFlows(const Timeline& timeline,
                                    const std::vector<ir::BlockDag>& dags);

} // namespace ios::eval
