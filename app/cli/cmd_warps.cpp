// SPDX-License-Identifier: Apache-2.0
// `ios-sched warps TRACE... -o figure.svg`: the active-warp curves of measured traces over
// normalised time, with each run's busy-time and whole-run means, in one SVG figure (the
// paper's Figure 8 compares sequential, greedy and IOS-both this way; docs/gpu.md "Active
// warps and eager runs"). The CLI is Qt-free, so the SVG is written as text; `convert
// figure.svg figure.png` (ImageMagick) makes a PNG of it.
#include "args.h"
#include "command.h"
#include "gpu_trace.h"
#include "io/trace_format.h"
#include "io/trace_import.h"
#include "provenance_options.h"
#include "text_format.h"
#include "util/error.h"
#include "util/output_file.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace ios::cli {

namespace {

constexpr int kBins = 200; // time-weighted means per bin: PM samples are spiky at 10 µs
constexpr double kWidth = 860;
constexpr double kLeft = 70, kRight = 20, kTop = 56, kPlotHeight = 300;
const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};

struct Curve {
    std::string label;
    std::vector<double> pct; // per bin, % of peak
    double busyPct = 0, runPct = 0;
};

std::string xmlEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

Curve readCurve(const std::string& file, std::string& header) {
    io::TraceInfo info;
    const eval::Timeline tl = io::readChromeTrace(file, &info);
    const double busy = profiling::busyWarpOccupancy(tl);
    if (tl.samples.empty() || busy < 0 || tl.latencyUs <= 0)
        throw UserError("no active-warp samples over the run's kernels: a measured trace with "
                        "PM sampling is needed (measure --trace-prefix, trace --gpu)",
                        file);
    Curve c;
    c.label = info.strategy.empty() ? std::filesystem::path(file).stem().string() : info.strategy;
    if (!info.mode.empty())
        c.label += " (" + info.mode + ")";
    c.busyPct = 100 * busy;
    c.runPct = 100 * std::max(0.0, profiling::meanWarpOccupancy(tl, 0, tl.latencyUs));
    for (int b = 0; b < kBins; ++b) {
        const double v = profiling::meanWarpOccupancy(tl, tl.latencyUs * b / kBins,
                                                      tl.latencyUs * (b + 1) / kBins);
        c.pct.push_back(100 * std::max(0.0, v));
    }
    if (header.empty())
        header = (info.model.empty() ? std::string("measured run") : info.model) + " on " +
                 tl.device + ", batch " + std::to_string(tl.batch);
    return c;
}

// The smallest 1-2-5 step (in %) at or above `pct`, at least 1 %.
double niceTop(double pct) {
    for (double top = 1;; top *= 10)
        for (double step : {1.0, 2.0, 5.0})
            if (step * top >= pct)
                return step * top;
}

std::string svgFigure(const std::vector<Curve>& curves, const std::string& header) {
    double peak = 0;
    for (const Curve& c : curves)
        for (double v : c.pct)
            peak = std::max(peak, v);
    const double top = std::min(niceTop(peak), 100.0);
    const double plotWidth = kWidth - kLeft - kRight;
    auto x = [&](double fraction) { return kLeft + plotWidth * fraction; };
    auto y = [&](double pct) { return kTop + kPlotHeight * (1 - std::min(pct, top) / top); };
    const double height = kTop + kPlotHeight + 56 + 18 * static_cast<double>(curves.size());
    std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    fixed(kWidth, 0) + "\" height=\"" + fixed(height, 0) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    // Where the figure came from (io/provenance.h), as SVG metadata.
    io::Provenance provenance;
    provenance.command = commandLine();
    s += "<metadata>" + xmlEscape(io::provenanceComment(provenance, "")) + "</metadata>\n";
    s += "<text x=\"" + fixed(kLeft, 0) +
         "\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Active warps (% of peak, PM "
         "sampling) over normalised time</text>\n";
    s += "<text x=\"" + fixed(kLeft, 0) + "\" y=\"38\">" + xmlEscape(header) + "</text>\n";
    for (int i = 0; i <= 4; ++i) { // y grid and labels
        const double pct = top * i / 4;
        s += "<line x1=\"" + fixed(kLeft, 1) + "\" x2=\"" + fixed(x(1), 1) + "\" y1=\"" +
             fixed(y(pct), 1) + "\" y2=\"" + fixed(y(pct), 1) + "\" stroke=\"#e4e4e4\"/>\n";
        s += "<text x=\"" + fixed(kLeft - 6, 1) + "\" y=\"" + fixed(y(pct) + 4, 1) +
             "\" text-anchor=\"end\">" + fixed(pct, top < 4 ? 2 : 1) + " %</text>\n";
    }
    for (int i = 0; i <= 10; ++i) // x labels
        s += "<text x=\"" + fixed(x(i / 10.0), 1) + "\" y=\"" + fixed(kTop + kPlotHeight + 16, 1) +
             "\" text-anchor=\"middle\">" + fixed(i / 10.0, 1) + "</text>\n";
    s += "<text x=\"" + fixed(x(0.5), 1) + "\" y=\"" + fixed(kTop + kPlotHeight + 34, 1) +
         "\" text-anchor=\"middle\">time / run latency</text>\n";
    s += "<rect x=\"" + fixed(kLeft, 1) + "\" y=\"" + fixed(kTop, 1) + "\" width=\"" +
         fixed(plotWidth, 1) + "\" height=\"" + fixed(kPlotHeight, 1) +
         "\" fill=\"none\" stroke=\"#a0a0a0\"/>\n";
    for (size_t i = 0; i < curves.size(); ++i) {
        const Curve& c = curves[i];
        const std::string color = kColors[i % std::size(kColors)];
        std::string points;
        for (size_t b = 0; b < c.pct.size(); ++b) // steps: each bin's mean over its width
            for (size_t edge : {b, b + 1})
                points += fixed(x(static_cast<double>(edge) / c.pct.size()), 2) + "," +
                          fixed(y(c.pct[b]), 2) + " ";
        points.pop_back();
        s += "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\" points=\"" +
             points + "\"/>\n";
        s += "<line x1=\"" + fixed(kLeft, 1) + "\" x2=\"" + fixed(x(1), 1) + "\" y1=\"" +
             fixed(y(c.busyPct), 2) + "\" y2=\"" + fixed(y(c.busyPct), 2) + "\" stroke=\"" + color +
             "\" stroke-dasharray=\"6,4\"/>\n";
        const double ly = kTop + kPlotHeight + 56 + 18 * static_cast<double>(i);
        s += "<line x1=\"" + fixed(kLeft, 1) + "\" x2=\"" + fixed(kLeft + 24, 1) + "\" y1=\"" +
             fixed(ly - 4, 1) + "\" y2=\"" + fixed(ly - 4, 1) + "\" stroke=\"" + color +
             "\" stroke-width=\"2\"/>\n";
        s += "<text x=\"" + fixed(kLeft + 32, 1) + "\" y=\"" + fixed(ly, 1) + "\">" +
             xmlEscape(c.label + ": busy-time mean " + fixed(c.busyPct, 2) + " %, run mean " +
                       fixed(c.runPct, 2) + " % (dashed: busy-time mean)") +
             "</text>\n";
    }
    s += "</svg>\n";
    return s;
}

int runWarps(const std::vector<std::string>& args) {
    ArgParser parser("ios-sched warps TRACE.json [TRACE.json...] -o FIGURE.svg",
                     "Compare the active warps of measured traces (measure --trace-prefix, "
                     "trace --gpu): each run's curve over normalised time (time-weighted means "
                     "of " +
                         std::to_string(kBins) +
                         " bins) with its busy-time mean (time when a kernel runs) and "
                         "whole-run mean, as an SVG figure like the paper's Figure 8; the "
                         "means are printed too. Traces of CUDA-graph replays show the device's "
                         "own active warps; eager traces are diluted by host gaps.");
    parser.positional("TRACE", "a measured Chrome trace (.json)", true, true);
    parser.option("-o, --output", "FIGURE", "The SVG figure to write");
    if (!parser.parse(args))
        return kExitOk;
    if (!parser.value("output"))
        throw UserError("missing -o FIGURE.svg");
    const std::filesystem::path out = parser.get("output");
    if (!util::isStandardOutput(out) && out.extension() != ".svg")
        throw UserError("the figure is written as SVG (.svg; `convert` makes a PNG of it), not '" +
                            out.extension().string() + "'",
                        out.string());
    util::OutputTransaction output;
    output.check(out, "the figure (-o)");
    for (const std::string& file : parser.positionals())
        output.input(file, "a TRACE read");
    std::string header;
    std::vector<Curve> curves;
    for (const std::string& file : parser.positionals())
        curves.push_back(readCurve(file, header));
    output.stage(out, svgFigure(curves, header));
    output.commit();
    std::cout << "run                         busy-time mean %  run mean %\n";
    for (const Curve& c : curves) {
        std::string label = c.label;
        label.resize(std::max<size_t>(label.size(), 28), ' ');
        std::cout << label << fixed(c.busyPct, 2) << std::string(12, ' ') << fixed(c.runPct, 2)
                  << "\n";
    }
    std::cout << "-> " << out.string() << "\n";
    return kExitOk;
}

} // namespace

} // namespace ios::cli

IOS_REGISTER_COMMAND(warps, "warps",
                     "Compare active warps of measured traces in an SVG figure (Figure 8)",
                     ios::cli::runWarps);
