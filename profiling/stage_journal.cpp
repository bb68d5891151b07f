// SPDX-License-Identifier: Apache-2.0
#include "stage_journal.h"

#include "util/error.h"
#include "util/input_file.h"
#include "util/json_number.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace ios::profiling {

std::filesystem::path journalPath(const std::filesystem::path& cacheFile) {
    std::filesystem::path p = cacheFile;
    p += ".partial";
    return p;
}

std::string journalLine(const cost::StageMeasurement& m) {
    return util::dumpJson(cost::measurementJson(m), -1) + "\n";
}

std::vector<cost::StageMeasurement> readJournal(const std::filesystem::path& path,
                                                std::vector<std::string>& warnings) {
    // Read line by line, of any size: the journal is the tool's own, like the cache.
    const std::unique_ptr<std::istream> stream =
        util::openInputStream(path, util::InputKind::MeasurementCache);
    std::istream& in = *stream;
    std::vector<cost::StageMeasurement> out;
    size_t lineNo = 0;
    for (std::string line; std::getline(in, line);) {
        ++lineNo;
        if (in.eof()) { // no newline after it
            warnings.push_back(path.string() + ": line " + std::to_string(lineNo) +
                               " is incomplete (a run stopped while writing it); ignored, its "
                               "stage is measured again");
            break;
        }
        if (line.empty())
            continue;
        // One entry checked exactly as a cache file's entries are: one place for the rules.
        const std::string doc = R"({"format": "ios-explorer-measurements", "version": 1, )"
                                R"("entries": [)" +
                                line + "]}";
        const cost::MeasurementCache one =
            cost::MeasurementCache::parse(doc, path.string() + " line " + std::to_string(lineNo));
        if (one.entries().size() != 1)
            throw UserError("line " + std::to_string(lineNo) + " is not one journal entry",
                            path.string());
        out.push_back(one.entries().front());
    }
    return out;
}

namespace {

// The length of `fd`'s content up to and with its last newline (0 when it has none): what is
// after it is the fragment of a line a cut-off run was writing.
off_t completeLength(int fd) {
    struct stat st = {};
    if (::fstat(fd, &st) != 0)
        return -1;
    char buffer[65536];
    for (off_t end = st.st_size; end > 0;) {
        const off_t start = end > off_t{sizeof buffer} ? end - off_t{sizeof buffer} : 0;
        const size_t want = static_cast<size_t>(end - start);
        const ssize_t n = ::pread(fd, buffer, want, start);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != static_cast<ssize_t>(want))
            return -1;
        for (size_t i = want; i > 0; --i)
            if (buffer[i - 1] == '\n')
                return start + static_cast<off_t>(i);
        end = start;
    }
    return 0;
}

} // namespace

JournalWriter::JournalWriter(std::filesystem::path path) : path_(std::move(path)) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0)
        throw UserError(std::string("cannot open the profiling journal for appending: ") +
                            std::strerror(errno),
                        path_.string());
    // A fragment left by a cut-off write is cut off first: appended lines never join it.
    const off_t keep = completeLength(fd);
    if (keep < 0 || ::ftruncate(fd, keep) != 0 || (file_ = ::fdopen(fd, "ab")) == nullptr) {
        const int err = errno;
        ::close(fd);
        throw UserError(std::string("cannot cut the profiling journal to its last complete "
                                    "line: ") +
                            std::strerror(err),
                        path_.string());
    }
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
