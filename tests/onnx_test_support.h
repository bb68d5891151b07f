// SPDX-License-Identifier: Apache-2.0
// What the ONNX import suites check on an imported graph: its operator kinds, an operator by
// name, and that the IOS search schedules it validly.
#pragma once

#include "cost/analytic_cost_model.h"
#include "io/onnx_import.h"
#include "ir/graph.h"
#include "ir/metrics.h"
#include "ir/prepared_model.h"
#include "schedule/verify.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"

#include <QtTest>
#include <map>
#include <string>

namespace ios::test {

// The one-line error importing `bytes` as "test.onnx" gives; empty when it imports.
inline QString errorOf(const std::string& bytes, const io::ModelLoadOptions& o = {}) {
    try {
        io::parseOnnx(bytes, "test.onnx", o);
    } catch (const UserError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// How many schedule operators of each kind ("conv", "norm", ...).
inline std::map<std::string, int> kindCounts(const ir::Graph& g) {
    std::map<std::string, int> out;
    for (const ir::Block& b : g.blocks)
        for (const ir::Node* op : b.operators())
            ++out[std::string(ir::toString(op->kind))];
    return out;
}

inline const ir::Node* findOp(const ir::Graph& g, const std::string& name) {
    for (const ir::Block& b : g.blocks)
        for (const ir::Node* op : b.operators())
            if (op->name == name)
                return op;
    return nullptr;
}

// The graph's FLOPs at batch 1 (ir::computeMetrics summed over the operators).
inline double totalFlops(const ir::Graph& g) {
    const ir::NodeIndex index(g);
    double f = 0;
    for (const ir::Block& b : g.blocks)
        for (const ir::Node* op : b.operators())
            f += static_cast<double>(ir::computeMetrics(*op, index).flops);
    return f;
}

// `optimize --strategy both` on the analytic cost model, checked by the schedule verifier.
inline void optimizeAndVerify(const ir::Graph& g) {
    const cost::AnalyticCostModel cost(g);
    schedulers::Options options;
    options.strategy = schedulers::Strategy::Both;
    const ir::PreparedModel prepared(g);
    const schedulers::Result r = schedulers::optimize(prepared, options, cost);
    schedule::verify(prepared.dags(), r.schedule);
    QVERIFY(r.latencyMs > 0);
}

} // namespace ios::test
