// SPDX-License-Identifier: Apache-2.0
#include "util/output_file.h"

#include "util/error.h"
#include "util/file_type.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace ios::util {

namespace {

namespace fs = std::filesystem;

// Named temporaries are ".NAME.ios-tmp-PID-N" beside the target: hidden, and recognisable so
// that a later run can remove the ones whose process is gone.
constexpr std::string_view kTempTag = ".ios-tmp-";

std::string errnoText(int err) {
    return std::strerror(err);
}

[[noreturn]] void fail(const fs::path& shown, int err, const std::string& advice) {
    throw UserError("cannot write file: " + errnoText(err) + (advice.empty() ? "" : "; " + advice),
                    shown.string());
}

void (*gStandardOutputClaimed)() = nullptr; // setStandardOutputClaimedHook

[[noreturn]] void refuse(const fs::path& shown, const std::string& why) {
    throw UserError("cannot write file: " + why, shown.string());
}

// ---- Temporaries the signal handler removes (async-signal-safe: fixed slots, atomics) ----

constexpr int kSlots = 64;
struct Slot {
    std::atomic<bool> claimed{false};
    std::atomic<bool> ready{false};
    char path[PATH_MAX] = {};
};
Slot gSlots[kSlots];
std::atomic<int> gCommitting{0};
std::atomic<int> gPendingSignal{0};
std::atomic<int> gCommits{0};
const char* gProgram = "ios-sched";

int registerTemp(const fs::path& temp) {
    const std::string& p = temp.native();
    if (p.size() >= PATH_MAX)
        return -1;
    for (int i = 0; i < kSlots; ++i) {
        bool expected = false;
        if (!gSlots[i].claimed.compare_exchange_strong(expected, true))
            continue;
        std::memcpy(gSlots[i].path, p.c_str(), p.size() + 1);
        gSlots[i].ready.store(true, std::memory_order_release);
        return i;
    }
    return -1; // not removed on a signal; a later run removes it as stale
}

void unregisterTemp(int& slot) {
    if (slot < 0)
        return;
    gSlots[slot].ready.store(false, std::memory_order_release);
    gSlots[slot].claimed.store(false, std::memory_order_release);
    slot = -1;
}

void writeStderr(const char* text) {
    const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

[[noreturn]] void exitOnSignal(int sig) {
    for (Slot& s : gSlots)
        if (s.ready.load(std::memory_order_acquire))
            ::unlink(s.path);
    writeStderr(gProgram);
    writeStderr(sig == SIGINT    ? ": stopped by SIGINT"
                : sig == SIGTERM ? ": stopped by SIGTERM"
                                 : ": stopped by SIGHUP");
    writeStderr(gCommits.load() == 0 ? "; no output file was written\n"
                                     : " after writing its output files\n");
    ::_exit(128 + sig);
}

extern "C" void onOutputSignal(int sig) {
    if (gCommitting.load() != 0) { // finish the renames first (CommitGuard delivers it)
        gPendingSignal.store(sig);
        return;
    }
    exitOnSignal(sig);
}

// Holds signals back while a commit renames; delivers one that came meanwhile.
struct CommitGuard {
    CommitGuard() { gCommitting.fetch_add(1); }
    ~CommitGuard() {
        if (gCommitting.fetch_sub(1) == 1 && gPendingSignal.load() != 0)
            exitOnSignal(gPendingSignal.load());
    }
};

// ---- Targets ----

struct Target {
    fs::path file; // the file to replace or create, a symbolic link resolved
    fs::path dir;  // where temporaries go: the folder of `file`
    bool exists = false;
    struct stat st = {};
};

std::string octalMode(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
    return text;
}

// What `path` names, checked: absent in an existing folder, or a writable regular file.
Target resolveTarget(const fs::path& path) {
    if (path.empty())
        throw UserError("cannot write file: the output file name is empty");
    Target t;
    t.file = path.has_parent_path() ? path : "." / path;
    if (::lstat(t.file.c_str(), &t.st) != 0) {
        if (const int err = errno; err != ENOENT)
            fail(path, err, "check the folders on the path");
        t.dir = t.file.parent_path();
        struct stat dir = {};
        if (::stat(t.dir.c_str(), &dir) != 0) {
            const int err = errno;
            fail(path, err, "create the folder '" + t.dir.string() + "' first");
        }
        if (!S_ISDIR(dir.st_mode))
            fail(path, ENOTDIR, "'" + t.dir.string() + "' is not a folder");
        return t;
    }
    if (S_ISLNK(t.st.st_mode)) { // written through: the link stays and points at new content
        char* real = ::realpath(t.file.c_str(), nullptr);
        if (real == nullptr)
            refuse(path, "it is a symbolic link to a missing file (" + errnoText(errno) +
                             "); remove the link or write to a file name");
        t.file = real;
        std::free(real);
        if (::stat(t.file.c_str(), &t.st) != 0)
            fail(path, errno, "");
    }
    if (S_ISDIR(t.st.st_mode))
        refuse(path, "it is a directory; name a file inside it");
    if (!S_ISREG(t.st.st_mode))
        refuse(path, std::string("it is ") + fileTypeName(t.st.st_mode) +
                         ", not a regular file; choose another output file name");
    // Root may write anything: the mode bits say what the owner wants kept.
    if ((t.st.st_mode & 0222) == 0)
        refuse(path, "it is read-only (mode " + octalMode(t.st.st_mode) +
                         "); make it writable (chmod u+w) or choose another output file name");
    if (::access(t.file.c_str(), W_OK) != 0)
        refuse(path, "it is not writable by this user (mode " + octalMode(t.st.st_mode) +
                         "); choose another output file name");
    t.exists = true;
    t.dir = t.file.parent_path();
    return t;
}

// ---- Temporaries ----

std::atomic<unsigned> gCounter{0};
std::atomic<bool> gNoTmpfile{false}; // O_TMPFILE files could not be linked here (no /proc?)

bool useTmpfile() {
    return !gNoTmpfile.load() && std::getenv("IOS_OUTPUT_NO_TMPFILE") == nullptr;
}

fs::path tempName(const Target& t) {
    const std::string base = t.file.filename().string().substr(0, 64); // within NAME_MAX
    return t.dir / ("." + base + std::string(kTempTag) + std::to_string(::getpid()) + "-" +
                    std::to_string(gCounter++));
}

// An unnamed file in the target's folder (O_TMPFILE), or a new named temporary where the file
// system has no O_TMPFILE (then `named` is set). -1 and errno on failure.
int openTemp(const Target& t, fs::path& named) {
    named.clear();
    if (useTmpfile()) {
        const int fd = ::open(t.dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
        if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
            return fd;
    }
    for (int attempt = 0; attempt < 100; ++attempt) {
        named = tempName(t);
        const int fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            break;
    }
    const int err = errno;
    named.clear();
    errno = err;
    return -1;
}

// Gives the unnamed file `fd` the name `name` (which must not exist). 0 or an errno.
int linkTemp(int fd, const fs::path& name) {
    const std::string proc = "/proc/self/fd/" + std::to_string(fd);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0)
        return 0;
    const int err = errno;
    if (err != EEXIST && ::linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0)
        return 0;
    return err;
}

// Creates (and removes) a temporary where stage() will, so a folder that takes no new files
// (read-only, /proc, full) fails before the work rather than after it.
void probeFolder(const Target& t, const fs::path& shown) {
    for (int round = 0; round < 2; ++round) {
        fs::path named;
        const int fd = openTemp(t, named);
        if (const int err = errno; fd < 0)
            fail(shown, err,
                 "no new file can be created in the folder '" + t.dir.string() +
                     "'; choose another folder");
        int err = 0;
        if (named.empty()) { // the commit needs linkat() on an unnamed file: try it now
            named = tempName(t);
            err = linkTemp(fd, named);
            if (err != 0) {
                named.clear();
                gNoTmpfile = true; // named temporaries from now on
            }
        }
        ::close(fd);
        if (!named.empty())
            ::unlink(named.c_str());
        if (err == 0)
            return;
    }
}

// Removes ".NAME.ios-tmp-PID-N" files of ours in `dir` whose process no longer runs (left by
// a kill -9 where O_TMPFILE is missing). Once per folder and process.
void removeStaleTemps(const fs::path& dir) {
    static std::mutex mutex;
    static std::set<std::string> done;
    {
        const std::lock_guard lock(mutex);
        if (!done.insert(dir.string()).second)
            return;
    }
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr)
        return;
    while (const dirent* e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        const size_t tag = name.rfind(kTempTag);
        if (name.empty() || name[0] != '.' || tag == std::string_view::npos)
            continue;
        const std::string rest(name.substr(tag + kTempTag.size()));
        char* end = nullptr;
        const long pid = std::strtol(rest.c_str(), &end, 10);
        if (pid <= 0 || *end != '-' || end[1] == '\0' ||
            std::strspn(end + 1, "0123456789") != std::strlen(end + 1))
            continue;
        const fs::path file = dir / std::string(name);
        struct stat st = {};
        if (pid == ::getpid() || ::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != ::geteuid())
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
            ::unlink(file.c_str());
    }
    ::closedir(d);
}

// Writes all of `content` to `fd`, retrying short writes and EINTR. 0 or an errno.
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

// The replaced file's owner and group where we may set them (root; a group we are in), then
// its mode: a 0600 output stays 0600.
int keepOwnerAndMode(int fd, const struct stat& old) {
    if ((old.st_uid != ::geteuid() || old.st_gid != ::getegid()) &&
        ::fchown(fd, old.st_uid, old.st_gid) != 0 && old.st_gid != ::getegid()) {
        const int ignored = ::fchown(fd, static_cast<uid_t>(-1), old.st_gid);
        (void)ignored;
    }
    return ::fchmod(fd, old.st_mode & 07777) == 0 ? 0 : errno;
}

std::string canonicalPath(const fs::path& file) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(file, ec);
    return ec ? fs::absolute(file, ec).lexically_normal().string() : canonical.string();
}

OutputTransaction::FileId identity(const Target& t) {
    OutputTransaction::FileId id;
    id.path = canonicalPath(t.file);
    id.exists = t.exists;
    id.device = static_cast<uint64_t>(t.st.st_dev);
    id.inode = static_cast<uint64_t>(t.st.st_ino);
    return id;
}

// "the model file 'm.json'" (an input's role is given); "another output of this command, the
// schedule (--save-schedule) 'a.json'" (an output's role may be empty).
std::string described(const std::string& what, const fs::path& shown, bool isInput) {
    const std::string role =
        isInput ? what : "another output of this command," + (what.empty() ? "" : " " + what);
    return role + " '" + shown.string() + "'";
}

void syncFolder(const fs::path& dir) {
    // Makes the renames durable; a failure leaves complete files, so it is ignored.
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

} // namespace

namespace {

Target checkTarget(const fs::path& path) {
    const Target t = resolveTarget(path);
    removeStaleTemps(t.dir);
    probeFolder(t, path);
    return t;
}

} // namespace

void checkOutputPath(const fs::path& path) {
    if (!isStandardOutput(path))
        checkTarget(path);
}

OutputTransaction::~OutputTransaction() {
    abort();
}

void OutputTransaction::check(const fs::path& path, std::string what) {
    if (isStandardOutput(path)) { // one stream: one output may go there
        if (gStandardOutputClaimed != nullptr)
            gStandardOutputClaimed();
        for (const Planned& p : planned_)
            if (!p.isInput && isStandardOutput(p.shown))
                throw UserError("two outputs cannot both go to standard output (" +
                                (p.what.empty() ? std::string("another output") : p.what) +
                                (what.empty() ? std::string() : " and " + what) +
                                "); give one of them a file name");
        planned_.push_back(
            {FileId{"<standard output>", false, 0, 0}, path, std::move(what), false});
        return;
    }
    plan({identity(checkTarget(path)), path, std::move(what), false});
}

void OutputTransaction::input(const fs::path& path, std::string what) {
    struct stat st = {};
    if (path.empty() || ::stat(path.c_str(), &st) != 0)
        return; // no file (a bundled model's name): its reader says what is wrong
    FileId id;
    id.path = canonicalPath(path);
    id.exists = true;
    id.device = static_cast<uint64_t>(st.st_dev);
    id.inode = static_cast<uint64_t>(st.st_ino);
    plan({std::move(id), path, std::move(what), true});
}

void OutputTransaction::plan(Planned file) {
    for (const Planned& p : planned_) {
        if (!(p.id == file.id) || (p.isInput && file.isInput))
            continue;
        const Planned& output = file.isInput ? p : file;
        const Planned& other = file.isInput ? file : p;
        if (other.isInput)
            refuse(output.shown, "it is also " + described(other.what, other.shown, true) +
                                     ", which this command reads; choose another output file");
        refuse(output.shown, "it is the same file as " + described(other.what, other.shown, false) +
                                 "; give each output its own file");
    }
    planned_.push_back(std::move(file));
}

void OutputTransaction::stage(const fs::path& path, std::string_view content) {
    if (isStandardOutput(path)) {
        if (standardOutput_)
            throw UserError("two outputs cannot both go to standard output; give one of them a "
                            "file name");
        standardOutput_ = std::string(content);
        return;
    }
    const Target t = resolveTarget(path);
    const FileId id = identity(t);
    for (const Staged& s : staged_)
        if (s.id == id)
            refuse(path, "it is the same file as " + described({}, s.shown, false) +
                             "; give each output its own file");
    Staged s;
    s.id = id;
    s.shown = path;
    s.target = t.file;
    s.fd = openTemp(t, s.temp);
    if (const int err = errno; s.fd < 0)
        fail(path, err,
             "no new file can be created in the folder '" + t.dir.string() +
                 "'; choose another folder");
    if (!s.temp.empty())
        s.slot = registerTemp(s.temp);
    staged_.push_back(std::move(s)); // from here abort() cleans it up
    Staged& staged = staged_.back();
    int err = t.exists ? keepOwnerAndMode(staged.fd, t.st) : 0;
    if (err == 0)
        err = writeAll(staged.fd, content);
    if (err == 0 && ::fsync(staged.fd) != 0)
        err = errno;
    if (!staged.temp.empty()) { // a named one needs no descriptor until the rename
        if (::close(staged.fd) != 0 && err == 0)
            err = errno;
        staged.fd = -1;
    }
    if (err != 0)
        fail(path, err, err == ENOSPC || err == EDQUOT ? "free some space and run it again" : "");
}

void OutputTransaction::commit() {
    // Testing hook (docs/testing.md): stop here so a test can kill a run with staged outputs.
    if (std::getenv("IOS_OUTPUT_TEST_STOP_BEFORE_COMMIT") != nullptr)
        ::raise(SIGSTOP);
    for (const Staged& s : staged_) {
        struct stat st = {};
        if (::lstat(s.target.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
            const fs::path shown = s.shown;
            abort();
            refuse(shown, "it was replaced by something that is not a regular file while the "
                          "command ran; no output was written");
        }
    }
    const CommitGuard guard;
    std::vector<fs::path> folders;
    for (size_t i = 0; i < staged_.size(); ++i) {
        Staged& s = staged_[i];
        int err = 0;
        if (s.temp.empty()) { // unnamed: a new target gets its name directly
            err = linkTemp(s.fd, s.target);
            if (err == EEXIST) {
                s.temp = tempName(Target{s.target, s.target.parent_path()});
                s.slot = registerTemp(s.temp);
                err = linkTemp(s.fd, s.temp);
                if (err != 0)
                    s.temp.clear();
            } else if (err == 0) {
                s.temp.clear();
            }
        }
        if (err == 0 && !s.temp.empty() && std::rename(s.temp.c_str(), s.target.c_str()) != 0)
            err = errno;
        if (err != 0) {
            const fs::path shown = s.shown;
            std::string written;
            for (size_t j = 0; j < i; ++j)
                written += (j ? ", " : "") + staged_[j].shown.string();
            staged_.erase(staged_.begin(), staged_.begin() + static_cast<ptrdiff_t>(i));
            abort();
            fail(shown, err,
                 written.empty() ? "no output was written" : "already written: " + written);
        }
        if (s.fd >= 0)
            ::close(s.fd);
        s.fd = -1;
        s.temp.clear();
        unregisterTemp(s.slot);
        folders.push_back(s.target.parent_path());
    }
    std::sort(folders.begin(), folders.end());
    folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
    for (const fs::path& dir : folders)
        syncFolder(dir);
    staged_.clear();
    if (standardOutput_) { // last: written only when every file is in place
        std::fflush(stdout);
        const std::string data = std::move(*standardOutput_);
        standardOutput_.reset();
        if (const int err = writeAll(STDOUT_FILENO, data); err != 0)
            fail("standard output", err, "it was closed or is full");
    }
    gCommits.fetch_add(1);
}

void OutputTransaction::abort() noexcept {
    for (Staged& s : staged_) {
        if (s.fd >= 0)
            ::close(s.fd);
        if (!s.temp.empty())
            ::unlink(s.temp.c_str());
        unregisterTemp(s.slot);
    }
    staged_.clear();
    standardOutput_.reset();
}

void setStandardOutputClaimedHook(void (*hook)()) {
    gStandardOutputClaimed = hook;
}

void writeFileAtomically(const fs::path& path, std::string_view content) {
    OutputTransaction output;
    output.stage(path, content);
    output.commit();
}

void installOutputSignalHandlers(const char* program) {
    gProgram = program;
    struct sigaction action = {};
    action.sa_handler = onOutputSignal;
    sigemptyset(&action.sa_mask);
    for (const int sig : {SIGINT, SIGTERM, SIGHUP})
        ::sigaction(sig, &action, nullptr);
}

} // namespace ios::util
