// SPDX-License-Identifier: Apache-2.0
// Output files written as one transaction per command (docs/cli.md "Output files"): every
// file is checked before the work, staged in full beside its target (an unnamed O_TMPFILE
// where the file system has it, so a killed process leaves nothing), and all are renamed into
// place only when everything has succeeded. A failed command changes no existing output.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::util {

// "-" names standard output wherever an output file is taken: its content is written there
// by commit() (after the files), in the default format of writers that choose by extension.
inline bool isStandardOutput(const std::filesystem::path& path) {
    return path.native() == "-";
}

// Called (when set) the first time an output transaction plans "-": a front end moves its
// own text for people to standard error, so standard output carries the data alone.
void setStandardOutputClaimedHook(void (*hook)());

// Throws ios::UserError naming `path` when it cannot be an output: an empty name, a missing
// folder, a folder that takes no new files (tried now), or an existing directory, FIFO,
// device, socket, read-only file or link to a missing file. A symbolic link to a regular file
// is written through (the link stays). Removes stale temporaries of ours in the folder (from
// killed runs). Front ends call it before long work, so a bad output fails at once.
void checkOutputPath(const std::filesystem::path& path);

// The outputs of one command. check() each output before the work, stage() its content once
// it is known, commit() at the end; destroyed without commit() (an exception, an early
// return), it removes what it staged and every existing output stays as it was.
class OutputTransaction {
public:
    OutputTransaction() = default;
    ~OutputTransaction();
    OutputTransaction(const OutputTransaction&) = delete;
    OutputTransaction& operator=(const OutputTransaction&) = delete;

    // The command's output plan: every file it writes and every file it reads, registered
    // before the work. check() registers an output: checkOutputPath(path), then a refusal
    // naming both files when another output or an input of this command is the same file
    // (after symbolic links and "./"; hard links by device and inode). `what` names the
    // output in that message ("--save-schedule", "the measurement cache (--cache)"). Outputs
    // written by their own writer (a journal appended as the work goes, a cache saved when
    // complete) are registered here too, so no two outputs of a command can be one file.
    void check(const std::filesystem::path& path, std::string what = {});
    // Registers a file the command reads (a model, a cache replayed as a cost model); an input
    // that is also an output of the command is refused, naming both. A name that is not an
    // existing file (a bundled model's name) is no input file and is ignored.
    void input(const std::filesystem::path& path, std::string what);
    // Writes `content` to a temporary file in the target's folder, flushed to disk, with the
    // mode (and, where allowed, owner and group) of the file it will replace.
    void stage(const std::filesystem::path& path, std::string_view content);
    // Checks that no target became something other than a regular file, then renames every
    // staged file over its target; SIGINT/SIGTERM wait until the renames are done.
    void commit();
    // Removes everything staged; nothing is written.
    void abort() noexcept;

    // Which file a path names: its canonical path, and its device and inode when it exists.
    struct FileId {
        std::string path;
        bool exists = false;
        uint64_t device = 0, inode = 0;
        bool operator==(const FileId& o) const {
            return path == o.path || (exists && o.exists && device == o.device && inode == o.inode);
        }
    };

private:
    struct Planned {
        FileId id;
        std::filesystem::path shown; // as the user named it
        std::string what;            // its role, for messages (empty: "another output")
        bool isInput = false;
    };
    void plan(Planned file);

    struct Staged {
        FileId id;                    // the target (one output per file)
        std::filesystem::path shown;  // as the user named it (messages)
        std::filesystem::path target; // the file replaced or created (a symbolic link resolved)
        std::filesystem::path temp;   // a named temporary, or empty while unnamed (O_TMPFILE)
        int fd = -1;                  // open while unnamed, for linkat()
        int slot = -1;                // where a named temporary is known to the signal handler
    };
    std::vector<Planned> planned_;
    std::vector<Staged> staged_;
    std::optional<std::string> standardOutput_; // what goes to "-"
};

// A transaction of one file: `path` gets `content`, or stays as it was.
void writeFileAtomically(const std::filesystem::path& path, std::string_view content);

// For command-line programs: SIGINT, SIGTERM and SIGHUP remove the named temporaries of every
// live transaction, print "PROGRAM: stopped by SIGINT; ..." and exit with 128 + the signal.
void installOutputSignalHandlers(const char* program);

} // namespace ios::util
