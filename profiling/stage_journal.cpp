#include "stage_journal.h"

#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace ios::profiling {

std::filesystem::path journalPath(const std::filesystem::path& cacheFile) {
    std::filesystem::path p = cacheFile;
    p += ".partial";
    return p;
}

std::string journalLine(const cost::StageMeasurement& m) {
    const util::Json j = {{"device", m.device},        {"model", m.model},
                          {"batch", m.batch},          {"stage", m.stage},
                          {"latency_ms", m.latencyMs}, {"samples", m.samples}};
    return util::dumpJson(j, -1) + "\n";
}

std::vector<cost::StageMeasurement> readJournal(const std::filesystem::path& path,
                                                std::vector<std::string>& warnings) {
    const std::string text = util::readInputFile(path, util::InputKind::MeasurementCache);
    std::vector<cost::StageMeasurement> out;
    size_t lineNo = 0;
    for (size_t at = 0; at < text.size();) {
        ++lineNo;
        const size_t end = text.find('\n', at);
        if (end == std::string::npos) {
            warnings.push_back(path.string() + ": line " + std::to_string(lineNo) +
                               " is incomplete (a run stopped while writing it); ignored, its "
                               "stage is measured again");
            break;
        }
        const std::string_view line(text.data() + at, end - at);
        at = end + 1;
        if (line.empty())
            continue;
        // One entry checked exactly as a cache file's entries are: one place for the rules.
        const std::string doc = R"({"format": "ios-explorer-measurements", "version": 1, )"
                                R"("entries": [)" +
                                std::string(line) + "]}";
        const cost::MeasurementCache one =
            cost::MeasurementCache::parse(doc, path.string() + " line " + std::to_string(lineNo));
        if (one.entries().size() != 1)
            throw UserError("line " + std::to_string(lineNo) + " is not one journal entry",
                            path.string());
        out.push_back(one.entries().front());
    }
    return out;
}

JournalWriter::JournalWriter(std::filesystem::path path) : path_(std::move(path)) {
    file_ = std::fopen(path_.c_str(), "ab");
    if (file_ == nullptr)
        throw UserError(std::string("cannot open the profiling journal for appending: ") +
                            std::strerror(errno),
                        path_.string());
}

JournalWriter::~JournalWriter() {
    if (file_ != nullptr)
        std::fclose(file_);
}

void JournalWriter::append(const std::vector<cost::StageMeasurement>& entries) {
    if (file_ == nullptr)
        throw std::logic_error("JournalWriter::append after close");
    std::string text;
    for (const cost::StageMeasurement& m : entries)
        text += journalLine(m);
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
        throw UserError(std::string("cannot write the profiling journal: ") + std::strerror(errno),
                        path_.string());
}

void JournalWriter::close() {
    if (file_ != nullptr && std::fclose(file_) != 0) {
        file_ = nullptr;
        throw UserError("cannot close the profiling journal", path_.string());
    }
    file_ = nullptr;
}

} // namespace ios::profiling
