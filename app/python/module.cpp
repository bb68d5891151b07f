// SPDX-License-Identifier: Apache-2.0
// The ios_explorer Python module (docs/python.md): models, the scheduler and cost-model
// registries, searches with progress and cancellation, timelines, traces and files. Every
// operation is an engine call, as the CLI commands (app/cli/cmd_*.cpp) make it.
#include "bundled_models.h"
#include "cost/cost_model_factory.h"
#include "cost/device_profile.h"
#include "eval/program_flows.h"
#include "eval/timeline_curves.h"
#include "io/model_file.h"
#include "io/onnx_import.h"
#include "io/schedule_file.h"
#include "io/trace_export.h"
#include "ir/block_dag.h"
#include "ir/prepared_model.h"
#include "schedule/ios_stages.h"
#include "schedulers/scheduler.h"
#include "util/error.h"
#include "util/output_file.h"

#include <memory>
#include <optional>
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace pybind11::literals;

namespace ios::python {

namespace {

using GraphPtr = std::shared_ptr<const ir::Graph>;

// A loaded model: the graph every schedule of it refers to.
struct Model {
    GraphPtr graph;
};

// One search's result with what it refers to (the model, its parts, the cost model).
struct ScheduleResult {
    GraphPtr graph;
    std::shared_ptr<const ir::PreparedModel> prepared;
    std::shared_ptr<const cost::CostModel> cost;
    std::string strategy;
    schedulers::Outcome outcome;

    const ir::PreparedModel& scheduled() const {
        return schedulers::scheduledModel(*prepared, outcome);
    }
};

// What a load read otherwise than the file says, as UserWarnings from the line that called
// ios_explorer.load / load_onnx_bytes (their Python wrappers are one frame above this call).
void warnLoad(const std::string& source, const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings)
        if (PyErr_WarnEx(PyExc_UserWarning, (source + ": " + w).c_str(), 2) != 0)
            throw py::error_already_set(); // warnings turned into errors (-W error)
}

Model loadPath(const std::string& pathOrName, const std::optional<std::vector<int64_t>>& shape,
               bool allowOpaque) {
    io::ModelLoadOptions options;
    if (shape)
        options.inputShape = *shape;
    options.allowOpaque = allowOpaque;
    std::vector<std::string> warnings; // what was read otherwise than the file says
    options.warnings = &warnings;
    auto graph = std::make_shared<const ir::Graph>(samples::loadModel(pathOrName, options));
    warnLoad(pathOrName, warnings);
    return Model{std::move(graph)};
}

Model loadBytes(const py::bytes& bytes, const std::string& source,
                const std::optional<std::vector<int64_t>>& shape, bool allowOpaque) {
    io::ModelLoadOptions options;
    if (shape)
        options.inputShape = *shape;
    options.allowOpaque = allowOpaque;
    std::vector<std::string> warnings;
    options.warnings = &warnings;
    const std::string text = bytes;
    auto graph = std::make_shared<const ir::Graph>(io::parseOnnx(text, source, options));
    warnLoad(source, warnings);
    return Model{std::move(graph)};
}

py::dict schedulerInfo(const schedulers::Scheduler& s) {
    py::list knobs;
    for (schedulers::Knob k : s.knobs())
        knobs.append(std::string(schedulers::knobKey(k)));
    py::list aliases;
    for (std::string_view a : s.aliases())
        aliases.append(std::string(a));
    return py::dict("key"_a = std::string(s.key()), "label"_a = std::string(s.label()),
                    "description"_a = std::string(s.description()), "knobs"_a = knobs,
                    "aliases"_a = aliases);
}

py::list schedulerList() {
    py::list out;
    for (const schedulers::Scheduler* s : schedulers::registeredSchedulers())
        out.append(schedulerInfo(*s));
    return out;
}

py::list costModelList() {
    py::list out;
    for (const cost::CostModelEntry& e : cost::costModelEntries())
        out.append(py::dict("key"_a = e.key, "label"_a = e.label, "usage"_a = e.usage,
                            "description"_a = e.description, "available"_a = e.isAvailable()));
    return out;
}

py::list modelList() {
    py::list out;
    for (const samples::BundledModel& m : samples::bundledModels())
        out.append(py::dict("name"_a = m.name, "description"_a = m.description,
                            "benchmark"_a = m.benchmark));
    return out;
}

// The engine's SearchParams from keyword arguments named as its fields (snake_case); an unknown
// name is a UserError naming the valid ones.
schedulers::SearchParams searchParams(const py::kwargs& kwargs) {
    schedulers::SearchParams p;
    for (const auto& [key, value] : kwargs) {
        const std::string k = py::str(key);
        if (k == "r")
            p.r = value.cast<int>();
        else if (k == "s")
            p.s = value.cast<int>();
        else if (k == "endings") {
            const std::string text = value.cast<std::string>();
            const auto e = schedulers::endingsFromString(text);
            if (!e)
                throw UserError("endings must be reference or all, not " + text);
            p.endings = *e;
        } else if (k == "max_part_size")
            p.maxPartSize = value.cast<int>();
        else if (k == "record_state_space")
            p.recordStateSpace = value.cast<bool>();
        else if (k == "max_recorded_transitions")
            p.maxRecordedTransitions = value.cast<uint64_t>();
        else if (k == "raf_tuples")
            p.rafTuples = value.cast<bool>();
        else if (k == "threads")
            p.threads = value.cast<int>();
        else if (k == "bytes_per_element")
            p.bytesPerElement = value.cast<int64_t>();
        else if (k == "memory_budget")
            p.memoryBudget = value.cast<int64_t>();
        else
            throw UserError("unknown search parameter " + k +
                            " (r, s, endings, max_part_size, record_state_space, "
                            "max_recorded_transitions, raf_tuples, threads, bytes_per_element, "
                            "memory_budget)");
    }
    return p;
}

std::shared_ptr<const cost::CostModel> makeCost(const ir::Graph& graph, const std::string& kind,
                                                const std::string& device, int batch) {
    cost::CostModelSpec spec;
    cost::parseCostModelKind(kind, spec);
    spec.device = cost::loadDevice(device);
    spec.batch = batch;
    return cost::makeCostModel(spec, graph);
}

// Runs the search without the GIL; `progress` is called with it, and a False return or an
// exception cancels the search (the exception is raised again afterwards).
ScheduleResult runSchedule(const Model& model, const std::string& strategy, int batch,
                           const std::string& device, const std::string& costModel,
                           const py::object& progress, const py::kwargs& kwargs) {
    const schedulers::Scheduler& scheduler = schedulers::schedulerByName(strategy);
    const schedulers::SearchParams params = searchParams(kwargs);
    ScheduleResult r;
    r.graph = model.graph;
    r.strategy = std::string(scheduler.key());
    r.cost = makeCost(*model.graph, costModel, device, batch);
    schedulers::SearchControl control;
    control.task = "schedule " + model.graph->name;
    std::optional<py::error_already_set> raised;
    if (!progress.is_none())
        control.progress = [&](uint64_t done, uint64_t total) {
            py::gil_scoped_acquire gil;
            if (raised)
                return;
            try {
                if (progress(done, total).ptr() == Py_False)
                    control.cancel = true;
            } catch (py::error_already_set& e) {
                raised.emplace(std::move(e));
                control.cancel = true;
            }
        };
    try {
        py::gil_scoped_release release;
        r.prepared = std::make_shared<const ir::PreparedModel>(*model.graph, params.maxPartSize);
        r.outcome = scheduler.run(*r.prepared, params, *r.cost, &control);
    } catch (const Cancelled&) {
        if (raised)
            throw std::move(*raised);
        throw;
    }
    return r;
}

py::list stagesOf(const ScheduleResult& r) {
    py::list blocks;
    for (size_t b = 0; b < r.outcome.schedule.blocks.size(); ++b) {
        const ir::BlockDag& dag = r.scheduled().dags()[b];
        py::list stages;
        for (const schedule::Stage& st : r.outcome.schedule.blocks[b].stages) {
            py::list groups;
            for (const schedule::Group& g : st.groups) {
                py::list ops;
                for (int op : g)
                    ops.append(dag.ops[static_cast<size_t>(op)]->name);
                groups.append(ops);
            }
            stages.append(
                py::dict("kind"_a = st.kind == schedule::StageKind::Merge ? "merge" : "parallel",
                         "groups"_a = groups));
        }
        blocks.append(stages);
    }
    return blocks;
}

py::object statisticsOf(const ScheduleResult& r) {
    if (!r.outcome.stats)
        return py::none();
    const schedulers::Statistics& s = *r.outcome.stats;
    return py::dict("states"_a = s.states, "transitions"_a = s.transitions,
                    "schedules"_a = s.schedules.toString(), "stages"_a = s.stages,
                    "stages_priced"_a = s.stagesPriced, "parts_searched"_a = s.partsSearched,
                    "seconds"_a = s.seconds);
}

eval::Timeline timelineOf(const ScheduleResult& r) {
    return schedulers::outcomeTimeline(r.prepared->dags(), r.outcome, *r.cost);
}

py::dict timelineDict(const ScheduleResult& r) {
    const eval::Timeline t = timelineOf(r);
    py::list kernels;
    for (const eval::TimelineKernel& k : t.kernels)
        kernels.append(py::dict("block"_a = k.block, "stage"_a = k.stage, "stream"_a = k.stream,
                                "op"_a = k.opName, "kernel"_a = k.kernel, "ctas"_a = k.ctas,
                                "start_us"_a = k.startUs, "end_us"_a = k.endUs));
    py::list stages;
    for (const eval::TimelineStage& s : t.stages)
        stages.append(py::dict("block"_a = s.block, "stage"_a = s.stage, "groups"_a = s.groups,
                               "start_us"_a = s.startUs, "end_us"_a = s.endUs));
    return py::dict("device"_a = t.device, "batch"_a = t.batch, "streams"_a = t.streams,
                    "latency_us"_a = t.latencyUs, "kernels"_a = kernels, "stages"_a = stages);
}

// The trace text for `path`'s extension (.csv or Chrome JSON), with the explorer's arrows.
std::string traceText(const ScheduleResult& r, const std::string& path) {
    const eval::Timeline t = timelineOf(r);
    const auto flows = io::traceFlows(eval::kernelFlows(t, r.scheduled().dags()));
    const io::TraceInfo info{r.graph->name, r.strategy};
    return io::timelineText(path, t, info, flows);
}

void exportTrace(const ScheduleResult& r, const std::string& path) {
    const eval::Timeline t = timelineOf(r);
    const auto flows = io::traceFlows(eval::kernelFlows(t, r.scheduled().dags()));
    io::writeTimeline(path, t, io::TraceInfo{r.graph->name, r.strategy}, flows);
}

std::string scheduleText(const ScheduleResult& r) {
    const ir::PreparedModel& m = r.scheduled();
    return io::writeScheduleFile(m.graph(), m.dags(), r.outcome.schedule,
                                 "ios_explorer " + r.strategy + " (" + r.cost->describe() + ")");
}

void saveSchedule(const ScheduleResult& r, const std::string& path) {
    util::writeFileAtomically(path, scheduleText(r));
}

// A schedule file read for `model` and priced like a search result.
ScheduleResult loadSchedule(const Model& model, const std::string& path, int batch,
                            const std::string& device, const std::string& costModel) {
    ScheduleResult r;
    r.graph = model.graph;
    r.strategy = "file";
    r.cost = makeCost(*model.graph, costModel, device, batch);
    r.prepared = std::make_shared<const ir::PreparedModel>(*model.graph);
    r.outcome.schedule = io::loadScheduleFile(path, *model.graph, r.prepared->dags());
    r.outcome.latencyMs = schedulers::outcomeLatencyMs(r.prepared->dags(), r.outcome, *r.cost);
    return r;
}

void saveModel(const Model& model, const std::string& path) {
    io::saveModelFile(*model.graph, path);
}

void saveScheduledModel(const ScheduleResult& r, const std::string& path) {
    const ir::PreparedModel& m = r.scheduled();
    io::saveModelFile(schedule::optimizedGraph(m.graph(), m.dags(), r.outcome.schedule), path);
}

// What the user can do about an engine error, in this module's own terms (keyword arguments;
// the CLI and the GUI word the same hints with their flags and menus).
std::string pythonHintText(Hint hint) {
    switch (hint) {
    case Hint::AllowOpaque:
        return " (pass allow_opaque=True to import them as opaque operators)";
    case Hint::InputShape:
        return " (pass input_shape=(N, C, H, W), or (N, T, D) for a token sequence)";
    case Hint::LowerPartSize:
        return " (lower max_part_size)";
    case Hint::ExplicitParts:
        return " (max_part_size does not apply to explicit parts)";
    case Hint::LowerBatch:
        return " (lower batch or bytes_per_element)";
    case Hint::ChooseCostModel:
        return " (choose another cost_model; cost_models() lists them)";
    case Hint::ChooseCacheDevice:
        return " (cost_model='cache:FILE@DEVICE')";
    case Hint::RaiseBudget:
        return " (raise memory_budget)";
    case Hint::None:
    case Hint::MeasureOnGpu: // not in this module (docs/python.md "Not covered yet")
    case Hint::StoreFallback:
    case Hint::CudaBackend:
        break;
    }
    return {};
}

PyObject* errorType = nullptr;     // ios_explorer.Error
PyObject* cancelledType = nullptr; // ios_explorer.Cancelled

// Engine errors become Error (Cancelled for a stopped search) with the hint appended.
void translateUserError(std::exception_ptr p) {
    try {
        if (p)
            std::rethrow_exception(p);
    } catch (const Cancelled& e) {
        PyErr_SetString(cancelledType, e.what());
    } catch (const UserError& e) {
        PyErr_SetString(errorType, (e.what() + pythonHintText(e.hint())).c_str());
    }
}

} // namespace

} // namespace ios::python

PYBIND11_MODULE(_native, m) {
    using namespace ios::python;
    m.doc() = "IOS Explorer's engine: models, schedulers, cost models, timelines and files.";
    auto& error = py::register_exception<ios::UserError>(m, "Error", PyExc_Exception);
    error.doc() = "An engine error (ios::UserError): bad file, name or parameter.";
    auto& cancelled = py::register_exception<ios::Cancelled>(m, "Cancelled", error.ptr());
    cancelled.doc() = "A search stopped by its progress callback.";
    errorType = error.ptr();
    cancelledType = cancelled.ptr();
    py::register_exception_translator(&translateUserError); // tried before the two above

    py::class_<Model>(m, "Model", "A loaded model (graph of blocks of operators).")
        .def_property_readonly(
            "name", [](const Model& x) { return x.graph->name; }, "The model's name.")
        .def_property_readonly(
            "block_count", [](const Model& x) { return x.graph->blocks.size(); },
            "Number of blocks.")
        .def_property_readonly(
            "operator_count",
            [](const Model& x) {
                size_t n = 0;
                for (const ios::ir::BlockDag& dag : ios::ir::buildDags(*x.graph))
                    n += dag.ops.size();
                return n;
            },
            "Number of scheduled operators over all blocks.")
        .def("save", &saveModel, "path"_a,
             "Write the model; the format follows the extension (.ios.json, native .json).")
        .def("__repr__",
             [](const Model& x) { return "<ios_explorer.Model " + x.graph->name + ">"; });

    py::class_<ScheduleResult>(m, "Schedule", "A scheduler's result on a model.")
        .def_property_readonly(
            "strategy", [](const ScheduleResult& r) { return r.strategy; },
            "The scheduler's key ('file' for a loaded schedule file).")
        .def_property_readonly(
            "latency_ms", [](const ScheduleResult& r) { return r.outcome.latencyMs; },
            "Latency under the cost model it was priced with, in ms.")
        .def_property_readonly(
            "peak_bytes", [](const ScheduleResult& r) { return r.outcome.peakBytes; },
            "Peak activation memory in bytes (docs/memory.md).")
        .def_property_readonly(
            "search_seconds", [](const ScheduleResult& r) { return r.outcome.searchSeconds; },
            "Seconds the search took.")
        .def_property_readonly("stages", &stagesOf,
                               "Per block, its stages: {'kind', 'groups': [[operator names]]}.")
        .def_property_readonly("statistics", &statisticsOf,
                               "The search's counts (states, transitions, ...) or None.")
        .def_property_readonly(
            "cost_model", [](const ScheduleResult& r) { return r.cost->describe(); },
            "The cost model it was priced with, described.")
        .def("timeline", &timelineDict,
             "The schedule laid out in time: kernels and stages with start/end in µs.")
        .def("trace", &traceText, "path"_a = "trace.json",
             "The trace text for the extension of `path`: CSV for .csv, else Chrome JSON.")
        .def("export_trace", &exportTrace, "path"_a,
             "Write the timeline atomically: .csv as CSV, anything else as a Chrome trace.")
        .def("schedule_json", &scheduleText, "The schedule file text (docs/formats.md).")
        .def("save", &saveSchedule, "path"_a, "Write the schedule file atomically.")
        .def("save_model", &saveScheduledModel, "path"_a,
             "Write the optimised model with its stages (.ios.json or native .json).")
        .def("__repr__", [](const ScheduleResult& r) {
            return "<ios_explorer.Schedule " + r.graph->name + " " + r.strategy + " " +
                   std::to_string(r.outcome.latencyMs) + " ms>";
        });

    m.def("load", &loadPath, "path_or_name"_a, py::kw_only(), "input_shape"_a = py::none(),
          "allow_opaque"_a = false,
          "Load a model file (.ios.json, .json, .onnx) or a bundled name (see models()).");
    m.def("load_onnx_bytes", &loadBytes, "data"_a, py::kw_only(), "source"_a = "<bytes>",
          "input_shape"_a = py::none(), "allow_opaque"_a = false,
          "Load a serialized ONNX ModelProto.");
    m.def("onnx_available", &ios::io::onnxSupportAvailable, "Whether ONNX import is built in.");
    m.def("models", &modelList, "The bundled models: [{'name', 'description', 'benchmark'}].");
    m.def("schedulers", &schedulerList,
          "The registered schedulers: [{'key', 'label', 'description', 'knobs', 'aliases'}].");
    m.def("cost_models", &costModelList,
          "The registered cost models: [{'key', 'label', 'usage', 'description', 'available'}].");
    m.def("devices", &ios::cost::bundledDeviceNames, "The bundled device profiles' names.");
    m.def("schedule", &runSchedule, "model"_a, "strategy"_a = "ios-both", py::kw_only(),
          "batch"_a = 1, "device"_a = std::string(ios::schedulers::kDefaultDevice),
          "cost_model"_a = "simulated", "progress"_a = py::none(),
          "Run a registered scheduler; search parameters (r, s, endings, max_part_size, "
          "memory_budget, bytes_per_element, threads, raf_tuples, record_state_space, "
          "max_recorded_transitions) as keywords. progress(done, total) may return False or "
          "raise to cancel.");
    m.def("load_schedule", &loadSchedule, "model"_a, "path"_a, py::kw_only(), "batch"_a = 1,
          "device"_a = std::string(ios::schedulers::kDefaultDevice), "cost_model"_a = "simulated",
          "Read a schedule file for `model` and price it.");
}
