// SPDX-License-Identifier: Apache-2.0
#include "util/input_file.h"

#include "util/error.h"
#include "util/file_type.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <new>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ios::util {

namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Closes the descriptor on every path out of the reader.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor() {
        if (fd_ >= 0)
            ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

std::string sizeText(unsigned long long bytes) {
    if (bytes >= kMiB)
        return std::to_string((bytes + kMiB / 2) / kMiB) + " MiB";
    if (bytes >= 1024)
        return std::to_string((bytes + 512) / 1024) + " KiB";
    return std::to_string(bytes) + " bytes";
}

// Standard input, read to its end on first use (at most the largest cap + 1 bytes: a larger
// stream is refused by the caller's cap as a file would be).
const std::string& standardInput() {
    static const std::string contents = [] {
        size_t cap = 0;
        for (InputKind k :
             {InputKind::Model, InputKind::OnnxModel, InputKind::Parts, InputKind::DeviceProfile,
              InputKind::MeasurementCache, InputKind::Results, InputKind::Schedule,
              InputKind::Trace, InputKind::Text})
            cap = std::max(cap, maxInputBytes(k));
        std::string out;
        char buffer[1 << 16];
        while (out.size() <= cap) {
            const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                throw UserError(std::string("cannot read standard input: ") + std::strerror(errno),
                                "-");
            if (n == 0)
                break;
            out.append(buffer, static_cast<size_t>(n));
        }
        return out;
    }();
    return contents;
}

// Standard input's bytes for a reader of `what` capped at `limit`.
const std::string& standardInputFor(const char* what, size_t limit) {
    const std::string& in = standardInput();
    if (in.size() > limit)
        throw UserError(std::string("the ") + what + " on standard input is over the " +
                            sizeText(limit) + " limit for " + what +
                            " files (docs/formats.md, \"Input files\")",
                        "-");
    return in;
}

// Opens and checks `path`; returns the open descriptor and the size on disk.
int openRegular(const std::filesystem::path& path, const char* what, struct stat& st) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        const int err = errno;
        throw UserError(std::string("cannot open file: ") + std::strerror(err) + " (the " + what +
                            (err == ENOENT ? " file; check the path)" : " file)"),
                        path.string());
    }
    if (::fstat(fd, &st) != 0) {
        const int err = errno;
        ::close(fd);
        throw UserError(std::string("cannot read the ") + what + " file: " + std::strerror(err),
                        path.string());
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        throw UserError(std::string("is ") + fileTypeName(st.st_mode) +
                            ", not a regular file; give the " + what + " as a regular file",
                        path.string());
    }
    return fd;
}

// Reads up to `limit` bytes; `expected` (the size on disk) sizes the buffer once. A file that
// grows past `limit` while being read is refused like one that was too large to begin with.
std::string readBounded(int fd, size_t expected, size_t limit, const std::filesystem::path& path,
                        const char* what, bool refuseMore) {
    std::string text;
    try {
        text.resize(expected);
    } catch (const std::bad_alloc&) {
        throw UserError(std::string("not enough memory to read the ") + what + " file (" +
                            sizeText(expected) + ")",
                        path.string());
    }
    size_t done = 0;
    while (true) {
        if (done == text.size()) {
            if (done >= limit) {
                // Probe one byte: a file that grew beyond the cap is refused.
                char extra = 0;
                ssize_t n;
                do
                    n = ::read(fd, &extra, 1);
                while (n < 0 && errno == EINTR);
                if (n > 0 && refuseMore)
                    throw UserError(std::string("the ") + what + " file grew beyond the " +
                                        sizeText(limit) + " limit while it was read",
                                    path.string());
                break;
            }
            text.resize(std::min(limit, std::max<size_t>(done * 2, 64 * 1024)));
        }
        const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw UserError(std::string("cannot read the ") + what +
                                " file: " + std::strerror(errno),
                            path.string());
        }
        if (n == 0)
            break;
        done += static_cast<size_t>(n);
    }
    text.resize(done);
    return text;
}

} // namespace

size_t maxInputBytes(InputKind kind) {
    switch (kind) {
    case InputKind::Model:
    case InputKind::Parts:
    case InputKind::Schedule:
    case InputKind::Results:
        return 32 * kMiB;
    case InputKind::DeviceProfile:
        return 1 * kMiB;
    case InputKind::MeasurementCache:
        return 64 * kMiB;
    case InputKind::Trace:
        return 256 * kMiB;
    case InputKind::OnnxModel:
        return 1024 * kMiB;
    case InputKind::Text:
        return 64 * kMiB;
    }
    return 64 * kMiB;
}

const char* inputKindName(InputKind kind) {
    switch (kind) {
    case InputKind::Model:
        return "model";
    case InputKind::OnnxModel:
        return "ONNX model";
    case InputKind::Parts:
        return "parts";
    case InputKind::DeviceProfile:
        return "device profile";
    case InputKind::MeasurementCache:
        return "measurement cache";
    case InputKind::Results:
        return "results";
    case InputKind::Schedule:
        return "schedule";
    case InputKind::Trace:
        return "trace";
    case InputKind::Text:
        return "input";
    }
    return "input";
}

std::string readInputFile(const std::filesystem::path& path, InputKind kind) {
    const char* what = inputKindName(kind);
    const size_t limit = maxInputBytes(kind);
    if (isStandardInput(path))
        return standardInputFor(what, limit);
    struct stat st {};
    const FileDescriptor fd(openRegular(path, what, st));
    const auto size = static_cast<unsigned long long>(st.st_size);
    if (size > limit)
        throw UserError(std::string("the ") + what + " file is " + sizeText(size) + ", over the " +
                            sizeText(limit) + " limit for " + what +
                            " files (docs/formats.md, \"Input files\"); give a smaller file",
                        path.string());
    return readBounded(fd.get(), static_cast<size_t>(size), limit, path, what, true);
}

namespace {

// Reads a descriptor through a 64 KiB buffer; owns and closes it.
class DescriptorBuffer final : public std::streambuf {
public:
    DescriptorBuffer(int fd, std::filesystem::path path, const char* what)
        : fd_(fd), path_(std::move(path)), what_(what) {}
    DescriptorBuffer(const DescriptorBuffer&) = delete;
    DescriptorBuffer& operator=(const DescriptorBuffer&) = delete;
    ~DescriptorBuffer() override { ::close(fd_); }

protected:
    int_type underflow() override {
        while (true) {
            const ssize_t n = ::read(fd_, buffer_, sizeof buffer_);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                throw UserError(std::string("cannot read the ") + what_ +
                                    " file: " + std::strerror(errno),
                                path_.string());
            if (n == 0)
                return traits_type::eof();
            setg(buffer_, buffer_, buffer_ + n);
            return traits_type::to_int_type(buffer_[0]);
        }
    }

private:
    int fd_;
    std::filesystem::path path_;
    const char* what_;
    char buffer_[1 << 16];
};

class DescriptorStream final : public std::istream {
public:
    explicit DescriptorStream(std::unique_ptr<DescriptorBuffer> buffer)
        : std::istream(buffer.get()), buffer_(std::move(buffer)) {}

private:
    std::unique_ptr<DescriptorBuffer> buffer_;
};

} // namespace

std::unique_ptr<std::istream> openInputStream(const std::filesystem::path& path, InputKind kind) {
    const char* what = inputKindName(kind);
    if (isStandardInput(path))
        return std::make_unique<std::istringstream>(
            standardInputFor(what, std::numeric_limits<size_t>::max()));
    struct stat st {};
    const int fd = openRegular(path, what, st);
    auto buffer = std::make_unique<DescriptorBuffer>(fd, path, what);
    auto stream = std::make_unique<DescriptorStream>(std::move(buffer));
    stream->exceptions(std::ios::badbit); // a read error's UserError reaches the caller
    return stream;
}

std::string readInputHead(const std::filesystem::path& path, size_t maxBytes) {
    if (isStandardInput(path))
        return standardInput().substr(0, maxBytes);
    struct stat st {};
    const FileDescriptor fd(openRegular(path, "input", st));
    const auto size = static_cast<unsigned long long>(st.st_size);
    return readBounded(fd.get(), static_cast<size_t>(std::min<unsigned long long>(size, maxBytes)),
                       maxBytes, path, "input", false);
}

std::filesystem::path resolveInside(const std::filesystem::path& folder,
                                    const std::string& reference, const std::string& field,
                                    const std::string& source) {
    namespace fs = std::filesystem;
    const auto refuse = [&](const std::string& why) {
        throw UserError(field + " '" + reference + "' " + why +
                            "; name a file inside the folder of this file (a plain relative path)",
                        source);
    };
    if (reference.empty())
        refuse("is empty");
    if (reference.find('\0') != std::string::npos)
        refuse("holds a NUL byte");
    const fs::path relative(reference);
    if (relative.has_root_path())
        refuse("is an absolute path");
    const fs::path base = folder.empty() ? fs::path(".") : folder;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(fs::absolute(base, ec), ec);
    if (ec)
        refuse("cannot be resolved (" + ec.message() + ")");
    const fs::path target = fs::weakly_canonical(root / relative, ec);
    if (ec)
        refuse("cannot be resolved (" + ec.message() + ")");
    // Inside means: the resolved root is a prefix of the resolved target, component-wise.
    auto t = target.begin();
    for (auto r = root.begin(); r != root.end(); ++r, ++t)
        if (t == target.end() || *r != *t)
            refuse("points outside that folder");
    if (t == target.end())
        refuse("names the folder itself");
    return base / relative;
}

bool inputExists(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::exists(std::filesystem::symlink_status(path, ec));
}

} // namespace ios::util
