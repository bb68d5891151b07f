// SPDX-License-Identifier: Apache-2.0
// What a stage does on the device over time: the kernels per stream and the utilisation
// curves. Cost models that can say this (the simulated GPU, the analytic model) implement
// KernelTimelineModel; eval::buildTimeline lays a whole schedule out from it.
#pragma once

#include "ir/block_dag.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ios::cost {

struct KernelRun {
    int group = 0; // = stream
    int op = 0;
    std::string label;
    std::string kernel;
    int64_t ctas = 0;
    double issueUs = 0; // when the host issued it (relative to the stage start)
    double startUs = 0; // first CTA resident
    double endUs = 0;   // last CTA done
};

// Device state from timeUs until the next sample (piecewise constant).
struct UtilisationSample {
    double timeUs = 0;
    int activeSms = 0;          // SMs with at least one resident CTA
    double warpOccupancy = 0;   // resident warps / (SMs × max warps per SM)
    double flopUtilisation = 0; // achieved fp32 flop rate / device peak
};

struct StageRun {
    double latencyUs = 0;
    bool synchronized = false; // multi-stream stage: launch latency and a device sync paid
    std::vector<KernelRun> kernels;
    std::vector<UtilisationSample> samples; // ends with an all-idle sample
    // Time-weighted averages over [0, latencyUs].
    double meanActiveSmFraction = 0;
    double meanWarpOccupancy = 0;
    double meanFlopUtilisation = 0;
};

class KernelTimelineModel {
public:
    virtual ~KernelTimelineModel() = default;

    // The stage's kernels and utilisation; latencyUs must equal the owning cost model's
    // stageLatencyMs(dag, stage) × 1000 (so a timeline adds up to the schedule's latency).
    virtual StageRun simulate(const ir::BlockDag& dag, const schedule::Stage& stage) const = 0;
    virtual std::string deviceName() const = 0;
    virtual int smCount() const = 0; // 0 when the model has no notion of SMs
    virtual int batch() const = 0;
};

} // namespace ios::cost
