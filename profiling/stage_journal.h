// SPDX-License-Identifier: Apache-2.0
// The stage profiler's journal (docs/gpu.md "Stage profiling at scale"): FILE.partial beside
// the measurement cache FILE, one JSON object per line per stage, appended and flushed after
// every measured graph, so a run cut off (killed, out of lease time, --max-graphs) loses at
// most the graph it was measuring and the next run skips what the journal holds.
#pragma once

#include "cost/measurement_cache.h"

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace ios::profiling {

// FILE.partial.
std::filesystem::path journalPath(const std::filesystem::path& cacheFile);

// The journal's entries, in file order. A last line without its newline is what a run killed
// while writing leaves: it is ignored, with a warning naming the file. Any other line that is
// not a measurement cache entry ({"device", "model", "batch", "stage", "latency_ms",
// "samples"}, checked as MeasurementCache::parse checks entries) is an ios::UserError naming
// the file and line.
std::vector<cost::StageMeasurement> readJournal(const std::filesystem::path& path,
                                                std::vector<std::string>& warnings);

// The line readJournal reads back (with its newline).
std::string journalLine(const cost::StageMeasurement& m);

// Appends to a journal (created when missing). Opening it cuts it to its last complete line:
// the fragment of a line a cut-off run was writing (a kill, a full disk) goes, so the lines
// appended after it stay whole and a resume after any number of cuts reads every complete
// measurement. Throws ios::UserError naming the file when it cannot be opened, cut or written.
class JournalWriter {
public:
    explicit JournalWriter(std::filesystem::path path);
    ~JournalWriter();
    JournalWriter(const JournalWriter&) = delete;
    JournalWriter& operator=(const JournalWriter&) = delete;

    // Writes the lines in one call and flushes them to the operating system.
    void append(const std::vector<cost::StageMeasurement>& entries);
    // Closes the file (append afterwards is a logic error).
    void close();

private:
    std::filesystem::path path_;
    std::FILE* file_ = nullptr;
};

} // namespace ios::profiling
