// SPDX-License-Identifier: Apache-2.0
// The CUDA backend as a run-time module (docs/gpu.md "The CUDA backend module"): the programs
// and the suites link no CUDA library (their ELF NEEDED entries, read with readelf), so they
// start without CUDA; without the module only the commands that need a GPU fail, exit 1 with
// one line naming what is missing; a missing library is named with what to install; a file
// that is not the module is refused; the module built here, loaded on a machine without a
// GPU or driver, says so instead of crashing; and the source of the executor's own kernels
// compiles with NVRTC for every architecture it supports (no GPU needed for that).
#include "cuda_backend.h"
#include "cuda_backend_loader.h"

#ifdef IOS_NVRTC_LIBRARY_PATH
#include "cuda_kernel_source.h"

#include <dlfcn.h>
#include <nvrtc.h>
#endif

#include <QCoreApplication>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// The shared libraries a program or module names in its dynamic section.
QStringList neededLibraries(const QString& file) {
    QProcess p;
    p.start("readelf", {"-d", "-W", file});
    if (!p.waitForFinished(30000) || p.exitCode() != 0)
        return {};
    QStringList libs;
    const QRegularExpression needed(R"(\(NEEDED\)\s+Shared library: \[([^\]]+)\])");
    for (auto m = needed.globalMatch(QString::fromUtf8(p.readAllStandardOutput())); m.hasNext();)
        libs << m.next().captured(1);
    return libs;
}

bool isCudaLibrary(const QString& lib) {
    static const QRegularExpression cuda(R"(^lib(cuda|cudart|cudnn|cupti|nvperf|cublas|nvrtc))");
    return cuda.match(lib).hasMatch();
}

struct Run {
    int code = -1;
    QString out, err;
};

// ios-sched with `env` set on top of this process's environment (IOS_PROFILING_MOCK removed:
// the real backend is asked for).
Run sched(const QStringList& args, const QMap<QString, QString>& env) {
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.remove("IOS_PROFILING_MOCK");
    e.remove(ios::profiling::kCudaBackendModuleEnv);
    for (auto it = env.begin(); it != env.end(); ++it)
        e.insert(it.key(), it.value());
    QProcess p;
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(IOS_SCHED_PATH), args);
    Run r;
    if (!p.waitForFinished(120000))
        return r;
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

const QStringList kMeasure{"measure", "demo_figure2", "--strategy", "sequential"};

} // namespace

class TestProfilingCudaModule : public QObject {
    Q_OBJECT

private slots:
    void theProgramsLinkNoCudaLibrary() {
        QStringList programs{QStringLiteral(IOS_SCHED_PATH),
                             QCoreApplication::applicationFilePath()};
#ifdef IOS_EXPLORER_PATH
        programs << QStringLiteral(IOS_EXPLORER_PATH);
#endif
        for (const QString& program : programs) {
            const QStringList libs = neededLibraries(program);
            QVERIFY2(libs.contains("libc.so.6"), qPrintable(program)); // readelf was read
            for (const QString& lib : libs)
                QVERIFY2(!isCudaLibrary(lib), qPrintable(program + " needs " + lib));
        }
#ifdef IOS_CUDA_MODULE_PATH
        // The module is where they went (and the check above can see them).
        const QStringList module = neededLibraries(QStringLiteral(IOS_CUDA_MODULE_PATH));
        for (const char* lib : {"^libcudnn", "^libcudart", "^libcupti", "^libcublas", "^libnvrtc"})
            QVERIFY2(module.filter(QRegularExpression(lib)).size() == 1,
                     qPrintable(module.join(' ')));
#endif
    }

    void withoutTheModuleOnlyGpuCommandsFail() {
        QTemporaryDir dir;
        const QString missing = dir.filePath("ios-cuda-backend.so");
        const QMap<QString, QString> env{{ios::profiling::kCudaBackendModuleEnv, missing}};
        const Run models = sched({"models"}, env);
        QCOMPARE(models.code, 0);
        QVERIFY(models.out.contains("inception_v3"));
        const Run optimize = sched({"optimize", "demo_figure2"}, env);
        QCOMPARE(optimize.code, 0);
        for (const QStringList& args :
             {kMeasure, QStringList{"profile", "squeezenet", "--cache", dir.filePath("c.json")},
              QStringList{"trace", "demo_figure2", "--gpu", "-o", dir.filePath("t.json")}}) {
            const Run r = sched(args, env);
            QCOMPARE(r.code, 1);
            QCOMPARE(r.err.count('\n'), 1); // one line
            QVERIFY2(r.err.contains("no CUDA device available: IOS_CUDA_BACKEND names " + missing +
                                    ", which does not exist"),
                     qPrintable(r.err));
            QVERIFY2(r.err.contains("IOS_PROFILING_MOCK=1"), qPrintable(r.err)); // the CLI's hint
        }
        QVERIFY(!QFile::exists(dir.filePath("c.json")));
        QVERIFY(!QFile::exists(dir.filePath("t.json")));
    }

    void aFileThatIsNotTheModuleIsRefused() {
        const QString notModule = QStringLiteral(IOS_SCHED_PATH); // an executable, not a module
        const Run r = sched(kMeasure, {{ios::profiling::kCudaBackendModuleEnv, notModule}});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(notModule + " cannot be loaded: "), qPrintable(r.err));
        // A shared library without the module's functions.
        for (const QString& lib : QStringList{"/lib/x86_64-linux-gnu/libm.so.6", "/lib64/libm.so.6",
                                              "/usr/lib/libm.so.6"}) {
            if (!QFile::exists(lib))
                continue;
            const Run m = sched(kMeasure, {{ios::profiling::kCudaBackendModuleEnv, lib}});
            QCOMPARE(m.code, 1);
            QVERIFY2(m.err.contains(lib + " is not an IOS Explorer CUDA backend module"),
                     qPrintable(m.err));
            return;
        }
    }

    void aMissingLibraryIsNamedWithWhatToInstall() {
        using ios::profiling::describeModuleLoadFailure;
        const std::string module = "/opt/x/ios-cuda-backend.so";
        const std::string suffix = ": cannot open shared object file: No such file or directory";
        const std::string cudnn = describeModuleLoadFailure(module, "libcudnn.so.9" + suffix);
        QVERIFY2(cudnn.find("the CUDA backend needs libcudnn.so.9 (cuDNN 9): install cuDNN 9") == 0,
                 cudnn.c_str());
        QVERIFY(cudnn.find("libcudnn9-cuda-") != std::string::npos);
        const std::string rt = describeModuleLoadFailure(module, "libcudart.so.13" + suffix);
        QVERIFY2(rt.find("libcudart.so.13 (the CUDA 13 runtime)") != std::string::npos, rt.c_str());
        const std::string cupti = describeModuleLoadFailure(module, "libcupti.so.13" + suffix);
        QVERIFY2(cupti.find("(CUPTI, ") != std::string::npos, cupti.c_str());
        const std::string self = describeModuleLoadFailure(module, module + suffix);
        QVERIFY2(self.find(module + " cannot be loaded: ") == 0, self.c_str());
        for (const std::string& s : {cudnn, rt, cupti, self})
            QVERIFY(s.find('\n') == std::string::npos);
    }

    // The real dlopen failure, not a made-up text: a module that needs a library the dynamic
    // linker cannot find, as the CUDA module needs cuDNN on a machine without it.
    void aModuleMissingALibraryNamesIt() {
#ifndef IOS_FIXTURE_MODULE_PATH
        QSKIP("the fixture module was not built");
#else
        const Run r = sched(kMeasure, {{ios::profiling::kCudaBackendModuleEnv,
                                        QStringLiteral(IOS_FIXTURE_MODULE_PATH)}});
        QCOMPARE(r.code, 1);
        QCOMPARE(r.err.count('\n'), 1);
        QVERIFY2(r.err.contains("no CUDA device available: the CUDA backend needs "
                                "libios-absent-fixture.so: install it and make it visible to the "
                                "dynamic linker"),
                 qPrintable(r.err));
#endif
    }

    void theSearchLooksBesideTheProgramAndInTheLibraryFolder() {
        qunsetenv(ios::profiling::kCudaBackendModuleEnv);
        const std::vector<std::string> c = ios::profiling::cudaBackendModuleCandidates();
        const QString dir = QCoreApplication::applicationDirPath();
        QCOMPARE(c.size(), size_t(2));
        QCOMPARE(QString::fromStdString(c[0]), dir + "/ios-cuda-backend.so");
        QVERIFY2(QString::fromStdString(c[1]).endsWith("/ios-explorer/ios-cuda-backend.so"),
                 c[1].c_str());
        qputenv(ios::profiling::kCudaBackendModuleEnv, "/elsewhere/m.so");
        QCOMPARE(ios::profiling::cudaBackendModuleCandidates(),
                 std::vector<std::string>{"/elsewhere/m.so"});
        // A relative name is the working folder's file (dlopen would search the library path).
        qputenv(ios::profiling::kCudaBackendModuleEnv, "rel/m.so");
        QCOMPARE(
            ios::profiling::cudaBackendModuleCandidates(),
            std::vector<std::string>{QDir::current().absoluteFilePath("rel/m.so").toStdString()});
        qunsetenv(ios::profiling::kCudaBackendModuleEnv);
    }

    // The module built here (its build-tree place mirrors the install), loaded on a machine
    // without a GPU: a clear error, no crash, from the suite and from ios-sched.
    void theBuiltModuleExplainsAMissingGpu() {
#ifndef IOS_CUDA_MODULE_PATH
        QSKIP("this build has no CUDA backend module");
#else
        qunsetenv(ios::profiling::kCudaBackendModuleEnv);
        QCOMPARE(QString::fromStdString(ios::profiling::findCudaBackendModule()),
                 QFileInfo(QStringLiteral(IOS_CUDA_MODULE_PATH)).absoluteFilePath());
        const ios::profiling::CudaOpenResult r = ios::profiling::openCudaBackend();
        if (r.backend)
            QSKIP("a CUDA device is available here: the no-GPU path cannot be exercised");
        QVERIFY(!ios::profiling::cudaDevicePresent());
        const QRegularExpression why("no usable NVIDIA driver \\(.+\\): install the NVIDIA driver|"
                                     "the NVIDIA driver finds no GPU \\(");
        QVERIFY2(why.match(QString::fromStdString(r.error)).hasMatch(), r.error.c_str());
        const Run m = sched(kMeasure, {});
        QCOMPARE(m.code, 1);
        QCOMPARE(m.err.count('\n'), 1);
        QVERIFY2(why.match(m.err).hasMatch(), qPrintable(m.err));
#endif
    }

    // The module compiles kCudaKernelSource at run time for the GPU it finds; here, NVRTC
    // (loaded like the module loads it, not linked) compiles it for every architecture this
    // CUDA supports, and each entry point the module looks up is in the code.
    void theExecutorsOwnKernelsCompile() {
#ifndef IOS_NVRTC_LIBRARY_PATH
        QSKIP("this build has no CUDA backend module");
#else
        void* lib = dlopen(IOS_NVRTC_LIBRARY_PATH, RTLD_NOW | RTLD_LOCAL);
        QVERIFY2(lib != nullptr, dlerror());
        auto fn = [&](const char* name) {
            void* f = dlsym(lib, name);
            if (f == nullptr)
                qFatal("NVRTC has no %s", name);
            return f;
        };
        const auto numArchs =
            reinterpret_cast<decltype(&nvrtcGetNumSupportedArchs)>(fn("nvrtcGetNumSupportedArchs"));
        const auto archs =
            reinterpret_cast<decltype(&nvrtcGetSupportedArchs)>(fn("nvrtcGetSupportedArchs"));
        const auto create =
            reinterpret_cast<decltype(&nvrtcCreateProgram)>(fn("nvrtcCreateProgram"));
        const auto compile =
            reinterpret_cast<decltype(&nvrtcCompileProgram)>(fn("nvrtcCompileProgram"));
        const auto logSize =
            reinterpret_cast<decltype(&nvrtcGetProgramLogSize)>(fn("nvrtcGetProgramLogSize"));
        const auto log = reinterpret_cast<decltype(&nvrtcGetProgramLog)>(fn("nvrtcGetProgramLog"));
        const auto ptxSize = reinterpret_cast<decltype(&nvrtcGetPTXSize)>(fn("nvrtcGetPTXSize"));
        const auto ptx = reinterpret_cast<decltype(&nvrtcGetPTX)>(fn("nvrtcGetPTX"));
        const auto destroy =
            reinterpret_cast<decltype(&nvrtcDestroyProgram)>(fn("nvrtcDestroyProgram"));
        int count = 0;
        QCOMPARE(numArchs(&count), NVRTC_SUCCESS);
        QVERIFY(count > 0);
        std::vector<int> supported(static_cast<size_t>(count));
        QCOMPARE(archs(supported.data()), NVRTC_SUCCESS);
        for (int arch : supported) {
            nvrtcProgram program = nullptr;
            QCOMPARE(create(&program, ios::profiling::kCudaKernelSource, "ios_kernels.cu", 0,
                            nullptr, nullptr),
                     NVRTC_SUCCESS);
            const std::string target = "--gpu-architecture=sm_" + std::to_string(arch);
            const char* options[] = {target.c_str(), "--std=c++17"};
            const nvrtcResult compiled = compile(program, 2, options);
            size_t size = 0;
            logSize(program, &size);
            std::string text(size, '\0');
            log(program, text.data());
            ptxSize(program, &size);
            std::string code(size, '\0');
            ptx(program, code.data());
            destroy(&program);
            QVERIFY2(compiled == NVRTC_SUCCESS, qPrintable(QString::fromStdString(target + text)));
            for (const char* name : ios::profiling::kCudaKernelNames)
                QVERIFY2(code.find(std::string(".entry ") + name) != std::string::npos, name);
        }
        dlclose(lib);
#endif
    }
};

QTEST_GUILESS_MAIN(TestProfilingCudaModule)
#include "tst_profiling_cuda_module.moc"
