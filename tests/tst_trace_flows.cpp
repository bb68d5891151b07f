// SPDX-License-Identifier: Apache-2.0
// Every exported trace of every scheduler on the four bundled benchmark models passes the strict
// validator (trace_validator.h), and every flow arrow binds, under DevTools' and Perfetto's
// rules alike, to exactly the two kernels it connects: the dependency arrows of stage
// schedules (eval::kernelFlows, as the explorer's timeline draws them) and the record → wait
// arrows of stream programs (eval/program_flows.h); each arrow points forward in time.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "eval/program_flows.h"
#include "eval/timeline_curves.h"
#include "io/trace_export.h"
#include "io/trace_format.h"
#include "io/trace_import.h"
#include "schedulers/scheduler.h"
#include "trace_validator.h"
#include "util/json_text.h"

#include <QTest>
#include <cmath>

using namespace ios;

namespace {

double roundedUs(double us) {
    return std::round(us * 1000.0) / 1000.0;
}

// The slice a flow end binds to is the kernel's: its track, start and name.
bool isKernelSlice(const testing::TraceSlice& s, const eval::TimelineKernel& k) {
    return s.cat == io::trace::kKernelCategory && s.pid == io::trace::kPid &&
           s.tid == io::trace::streamTid(k.stream) && s.ts == roundedUs(k.startUs) &&
           s.name == k.opName + ": " + k.kernel;
}

// Exports `flows` over `tl`, validates, and checks each flow's ends; returns the problem or "".
std::string checkTrace(const eval::Timeline& tl, const std::vector<io::TraceFlow>& flows) {
    const std::string text = io::chromeTraceJson(tl, {"m", "s"}, flows);
    const testing::TraceValidation v = testing::validateTrace(util::parseJsonText(text, "t"));
    if (!v.problems.empty())
        return v.problems.front();
    if (v.flows.size() != flows.size())
        return std::to_string(v.flows.size()) + " flows bound of " + std::to_string(flows.size());
    for (size_t i = 0; i < flows.size(); ++i) {
        const io::TraceFlow& f = flows[i];
        const auto bound = v.flows.find(std::string(io::trace::kFlowCategory) + "/" + f.name + "/" +
                                        std::to_string(i + 1));
        if (bound == v.flows.end())
            return "flow " + std::to_string(i + 1) + " not found";
        const auto& from = tl.kernels[static_cast<size_t>(f.fromKernel)];
        const auto& to = tl.kernels[static_cast<size_t>(f.toKernel)];
        if (!isKernelSlice(v.slices[bound->second.first], from) ||
            !isKernelSlice(v.slices[bound->second.second], to))
            return "flow " + std::to_string(i + 1) + " binds to other kernels";
        if (to.startUs < from.endUs - 1e-6 || from.stream == to.stream)
            return "flow " + std::to_string(i + 1) + " does not point forward across streams";
    }
    if (io::parseChromeTrace(text, "t").kernels.size() != tl.kernels.size())
        return "the trace does not read back";
    return {};
}

} // namespace

class TestTraceFlows : public QObject {
    Q_OBJECT

private slots:
    void everySchedulerEveryModel_data() {
        QTest::addColumn<QString>("model");
        QTest::addColumn<QString>("scheduler");
        for (const char* m : {"inception_v3", "randwire_large", "nasnet_large", "squeezenet"})
            for (const char* s : {"sequential", "greedy", "ios-parallel", "ios-merge", "ios-both",
                                  "raf-wavefront", "raf-asap", "raf-ios"})
                QTest::addRow("%s %s", m, s) << m << s;
    }
    void everySchedulerEveryModel() {
        QFETCH(QString, model);
        QFETCH(QString, scheduler);
        const ir::Graph graph = samples::loadBundledModel(model.toStdString());
        const ir::PreparedModel prepared(graph);
        const cost::SimulatedGpuCostModel cost(graph, *cost::findBundledDevice("V100"));
        const schedulers::Outcome o = schedulers::schedulerByName(scheduler.toStdString())
                                          .run(prepared, schedulers::Params{}, cost, nullptr);
        const std::vector<ir::BlockDag>& dags = prepared.dags();
        const eval::Timeline tl = schedulers::outcomeTimeline(dags, o, cost);

        // The explorer timeline's arrows (what `trace` exports), for every schedule.
        const std::vector<io::TraceFlow> deps = io::traceFlows(eval::kernelFlows(tl, dags));
        const std::string depProblem = checkTrace(tl, deps);
        QVERIFY2(depProblem.empty(), depProblem.c_str());
        if (scheduler == QLatin1String("greedy") || scheduler == QLatin1String("raf-asap"))
            QVERIFY(!deps.empty()); // several streams: some dependency crosses them

        if (o.programs.empty())
            return;
        // A stream program's record → wait arrows (what `streams --trace` exports).
        const std::vector<eval::ProgramFlow> program = eval::programFlows(dags, o.programs, cost);
        const std::vector<io::TraceFlow> events = io::traceFlows(tl, program);
        const std::string eventProblem = checkTrace(tl, events);
        QVERIFY2(eventProblem.empty(), eventProblem.c_str());
        QCOMPARE(events.size(), program.size()); // every wait guards a kernel after a record's
    }
};

QTEST_GUILESS_MAIN(TestTraceFlows)
#include "tst_trace_flows.moc"
