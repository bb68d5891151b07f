// SPDX-License-Identifier: Apache-2.0
// Runs ios-sched (IOS_SCHED_PATH) as a child process on the mock device (IOS_PROFILING_MOCK=1:
// a timing-only mock instead of CUDA, the dry run of tools/gpu_measure.sh), or with the
// variable removed, which on a machine without a GPU is the "no CUDA device" path.
#pragma once

#include <QByteArray>
#include <QProcess>
#include <QProcessEnvironment>
#include <QStringList>

namespace ios::testing {

// Starts `args` and waits up to `timeoutMs`; returns whether it finished. `p` keeps the
// output and the exit code.
inline bool runSched(QProcess& p, const QStringList& args, bool mock = true,
                     int timeoutMs = 300000) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (mock)
        env.insert("IOS_PROFILING_MOCK", "1");
    else
        env.remove("IOS_PROFILING_MOCK");
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(IOS_SCHED_PATH), args);
    return p.waitForFinished(timeoutMs);
}

// A finished run of ios-sched: exit code (-1 when it did not finish) and its output.
struct SchedRun {
    int code = -1;
    QByteArray out, err;
};

inline SchedRun runSchedCaptured(const QStringList& args, bool mock = true) {
    QProcess p;
    SchedRun r;
    if (!runSched(p, args, mock))
        return r;
    r.code = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace ios::testing
