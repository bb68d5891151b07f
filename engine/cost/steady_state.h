// SPDX-License-Identifier: Apache-2.0
// Closed-form advance of the GPU simulation (gpu_simulation.h) through steady stretches, so a
// stage's simulation cost follows its kernels, not its waves (docs/performance.md, "Batch-
// independent simulation"). Internal to the cost layer.
//
// A kernel is steady when every cohort of it that retires is refilled at once by as many CTAs
// of the same kernel: it has the CTAs pending, and no queued kernel the CTA scheduler serves
// first fits in the room one of its retirements frees (beside the room nothing fits now).
// While only steady kernels retire and nothing is admitted, the resident CTAs per kernel do
// not change, so neither do the rates (CtaRateModel::ratesOf depends on those counts alone):
// each cohort's progress advances linearly and wraps at 1, a kernel's pending CTAs fall by its
// cohorts' counts at each wrap. The stretch ends at the first admission that could take SM
// room (one the CTA scheduler serves before a steady kernel, or any while a CTA could fit in
// the room left), at the first retirement of a cohort of a kernel that is not steady (one
// without CTAs left, or whose room another kernel would take) and before any steady kernel
// runs out of CTAs: after its whole periods, at the retirement of its last cohort (oldest
// first) that its pending CTAs still refill in full. Its length is taken in one step. The step by
// step run adds the same time one event at a time: the two agree to rounding
// (cost::SimulationMode::Exact keeps the step by step run).
#pragma once

#include "cost/gpu_simulation.h"

namespace ios::cost::detail {

// Advances `b` from time t through the steady stretch that starts there, if it spans at least
// a few events; returns the new time (t when it does not). `freeSms`: the SM room no queued
// kernel fits in now (the caller checked that none does); `maxCtasPerSm`: the device's, the
// most CTAs of any kernel per SM.
double skipSteadyStretch(Buffers& b, double t, double freeSms, int maxCtasPerSm);

// False when skipSteadyStretch surely finds no stretch worth its step: an upper bound of what
// one could spare, from the resident kernels alone (no cohort walk; cheap enough to ask at
// every event). `freeSms` as for skipSteadyStretch.
bool stretchMaySpare(const Buffers& b, double freeSms);

} // namespace ios::cost::detail
