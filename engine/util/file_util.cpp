#include "util/file_util.h"

#include "util/error.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

namespace ios::util {

namespace {

// Model files are well under 1 MB; anything near this is not a model and would only exhaust
// memory.
constexpr size_t kMaxFileBytes = size_t{1} << 30;

std::string errnoText(int err) {
    return std::strerror(err);
}

struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
};

// Writes all of `content` to `fd`, retrying short writes and EINTR. Returns 0 or an errno.
int writeAll(int fd, std::string_view content) {
    size_t done = 0;
    while (done < content.size()) {
        const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        done += static_cast<size_t>(n);
    }
    return 0;
}

// Makes a new file beside `path` that no one else uses: O_EXCL with a name unique to this
// process and call, created with 0666 so the umask applies as for any other new file.
int createTemporary(const std::filesystem::path& path, std::filesystem::path& temp) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; attempt < 100; ++attempt) {
        temp = path;
        temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

} // namespace

std::string readTextFile(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw UserError("is a directory, not a file", path.string());
    std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
    if (!file)
        throw UserError("cannot open file: " + errnoText(errno), path.string());
    // Read in chunks rather than trusting the size on disk: pipes and /proc files report 0.
    std::string text;
    char buffer[1 << 16];
    while (true) {
        const size_t n = std::fread(buffer, 1, sizeof buffer, file.get());
        if (text.size() + n > kMaxFileBytes)
            throw UserError("file is larger than 1 GiB; it cannot be a model", path.string());
        text.append(buffer, n);
        if (n < sizeof buffer) {
            if (std::ferror(file.get()))
                throw UserError("cannot read file: " + errnoText(errno), path.string());
            break;
        }
    }
    return text;
}

void checkOutputPath(const std::filesystem::path& path) {
    if (path.empty())
        throw UserError("cannot write file: the output file name is empty");
    const std::filesystem::path target = path.has_parent_path() ? path : "." / path;
    std::error_code ec;
    if (std::filesystem::is_directory(target, ec))
        throw UserError("cannot write file: it is a directory", path.string());
    const auto parent = std::filesystem::status(target.parent_path(), ec);
    if (!std::filesystem::is_directory(parent))
        throw UserError("cannot write file: " +
                            errnoText(std::filesystem::exists(parent) ? ENOTDIR : ENOENT),
                        path.string());
}

void writeFileAtomically(const std::filesystem::path& path, std::string_view content) {
    checkOutputPath(path);
    const std::filesystem::path target = path.has_parent_path() ? path : "." / path;
    std::filesystem::path temp;
    const int fd = createTemporary(target, temp);
    if (fd < 0)
        throw UserError("cannot write file: " + errnoText(errno), path.string());
    int err = writeAll(fd, content);
    if (err == 0 && ::fsync(fd) != 0)
        err = errno;
    if (::close(fd) != 0 && err == 0)
        err = errno;
    if (err == 0 && std::rename(temp.c_str(), target.c_str()) != 0)
        err = errno;
    if (err != 0) {
        ::unlink(temp.c_str());
        throw UserError("cannot write file: " + errnoText(err), path.string());
    }
    // Make the rename itself durable; a failure here leaves a complete file, so it is ignored.
    const int dir = ::open(target.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

} // namespace ios::util
