// SPDX-License-Identifier: Apache-2.0
// cuda_backend.h for the programs: the CUDA backend lives in a module loaded on demand
// (cuda_backend_loader.h, cuda_plugin_abi.h); this file finds it, checks its ABI, and words
// every way it can be missing as one line that says what to install.
#include "cuda_backend_loader.h"

#include "cuda_backend.h"
#include "cuda_plugin_abi.h"
#include "mock_backend.h"
#include "util/error.h"

#include <cstdlib>
#include <dlfcn.h>
#include <filesystem>
#include <map>
#include <mutex>

namespace ios::profiling {

namespace {

namespace fs = std::filesystem;

// The CUDA release this build's module was made for ("13.0"; empty in a build without CUDA).
constexpr const char* kBuildCuda = IOS_CUDA_PLUGIN_CUDA_VERSION;

std::string cudaMajor() {
    const std::string v = kBuildCuda;
    return v.substr(0, v.find('.'));
}

// "for CUDA 13" where this build knows the release, else nothing.
std::string forBuildCuda() {
    return cudaMajor().empty() ? std::string() : " for CUDA " + cudaMajor();
}

// What a CUDA library is and how to get it, from its file name ("libcudnn.so.9").
std::string libraryAdvice(const std::string& lib) {
    const size_t so = lib.find(".so.");
    const std::string version = so == std::string::npos ? std::string() : lib.substr(so + 4);
    const std::string visible = " and make it visible to the dynamic linker (ldconfig or "
                                "LD_LIBRARY_PATH)";
    const std::string major = cudaMajor().empty() ? version : cudaMajor();
    if (lib.rfind("libcudnn", 0) == 0)
        return " (cuDNN " + version + "): install cuDNN " + version + forBuildCuda() +
               " (NVIDIA's package libcudnn" + version + "-cuda-" + major + ")" + visible;
    if (lib.rfind("libcudart", 0) == 0)
        return " (the CUDA " + version + " runtime): install the CUDA " + version +
               " runtime (NVIDIA's package cuda-cudart-" + version + "-* or the CUDA Toolkit)" +
               visible;
    if (lib.rfind("libnvrtc", 0) == 0 || lib.rfind("libcublas", 0) == 0)
        return " (" +
               std::string(lib.rfind("libnvrtc", 0) == 0 ? "NVRTC, CUDA's runtime compiler"
                                                         : "cuBLAS") +
               "): install the CUDA Toolkit's libraries" + forBuildCuda() + visible;
    if (lib.rfind("libcupti", 0) == 0 || lib.rfind("libnvperf", 0) == 0)
        return " (CUPTI, CUDA's profiling interface): install CUPTI" + forBuildCuda() +
               " (NVIDIA's package cuda-cupti-" + major + "-* or the CUDA Toolkit)" + visible;
    return ": install it" + visible;
}

std::string executableDir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

struct Module {
    IosCudaOpenFn open = nullptr;
    std::string error; // why it cannot be used, when open is null
};

Module checkAbi(void* handle, const std::string& path) {
    const auto abi = reinterpret_cast<IosCudaAbiFn>(dlsym(handle, IOS_CUDA_PLUGIN_ABI_SYMBOL));
    const auto open = reinterpret_cast<IosCudaOpenFn>(dlsym(handle, IOS_CUDA_PLUGIN_OPEN_SYMBOL));
    if (!abi || !open)
        return {nullptr, path + " is not an IOS Explorer CUDA backend module (it lacks " +
                             IOS_CUDA_PLUGIN_ABI_SYMBOL + " or " + IOS_CUDA_PLUGIN_OPEN_SYMBOL +
                             ")"};
    int version = 0;
    const std::string tag = abi(&version);
    if (version != IOS_CUDA_PLUGIN_ABI_VERSION || tag != IOS_CUDA_PLUGIN_TAG)
        return {nullptr, path + " was built for another version of this program (module ABI " +
                             std::to_string(version) + ", " + tag + "; this program: ABI " +
                             std::to_string(IOS_CUDA_PLUGIN_ABI_VERSION) + ", " +
                             IOS_CUDA_PLUGIN_TAG +
                             "): install the module built together with this program"};
    return {open, {}};
}

// dlopen once per path for the life of the process: backends it made may outlive any caller,
// so the module is never unloaded.
Module loadModule(const std::string& path) {
    static std::mutex mutex;
    static std::map<std::string, Module> loaded;
    const std::lock_guard lock(mutex);
    if (auto it = loaded.find(path); it != loaded.end())
        return it->second;
    Module m;
    dlerror();
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) {
        m = checkAbi(handle, path);
    } else {
        const char* e = dlerror();
        m.error = describeModuleLoadFailure(path, e ? e : "dlopen failed");
    }
    return loaded[path] = m;
}

// Why no module was found, naming where the search looked.
std::string notFound(const std::vector<std::string>& candidates) {
    if (const char* env = std::getenv(kCudaBackendModuleEnv); env && *env)
        return std::string(kCudaBackendModuleEnv) + " names " + candidates.front() +
               ", which does not exist";
    std::string looked;
    for (const std::string& c : candidates)
        looked += (looked.empty() ? "" : ", ") + c;
    std::string text = "the CUDA backend module " + std::string(kCudaBackendModuleName) +
                       " is not installed (looked for " + looked + "; the environment variable " +
                       kCudaBackendModuleEnv + " may name it)";
    if (std::string(kBuildCuda).empty())
        return text + ": this build has no CUDA backend (configure on a machine with the CUDA "
                      "Toolkit, cuDNN and CUPTI to build it)";
    return text + ": install IOS Explorer's CUDA backend module, made by this build with CUDA " +
           kBuildCuda;
}

// The module's functions, or why there are none.
Module findAndLoad() {
    const std::string path = findCudaBackendModule();
    if (path.empty())
        return {nullptr, notFound(cudaBackendModuleCandidates())};
    return loadModule(path);
}

std::string wordStatus(const IosCudaReply& reply) {
    switch (reply.status) {
    case IOS_CUDA_NO_DRIVER:
        return "no usable NVIDIA driver (" + std::string(reply.error) +
               "): install the NVIDIA driver (libcuda.so.1)" +
               (cudaMajor().empty() ? std::string() : forBuildCuda() + " or newer") +
               " on a machine with an NVIDIA GPU";
    case IOS_CUDA_NO_DEVICE:
        return "the NVIDIA driver finds no GPU (" + std::string(reply.error) + ")";
    default:
        return reply.error;
    }
}

IosCudaReply openWith(const Module& m, const CudaBackendOptions& options, bool probeOnly) {
    IosCudaRequest request{options.device, options.allowTf32 ? 1 : 0, probeOnly ? 1 : 0};
    IosCudaReply reply{};
    m.open(&request, &reply);
    return reply;
}

} // namespace

std::vector<std::string> cudaBackendModuleCandidates() {
    // Absolute: dlopen searches the library path, not the working folder, for a bare name.
    if (const char* env = std::getenv(kCudaBackendModuleEnv); env && *env) {
        std::error_code ec;
        const fs::path file = fs::absolute(env, ec);
        return {ec ? std::string(env) : file.lexically_normal().string()};
    }
    const fs::path dir = executableDir();
    if (dir.empty())
        return {};
    return {
        (dir / kCudaBackendModuleName).string(),
        (dir / IOS_CUDA_PLUGIN_RELATIVE_DIR / kCudaBackendModuleName).lexically_normal().string()};
}

std::string findCudaBackendModule() {
    for (const std::string& c : cudaBackendModuleCandidates()) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec))
            return c;
    }
    return {};
}

std::string describeModuleLoadFailure(const std::string& module, const std::string& dlError) {
    // glibc: "<file>: cannot open shared object file: No such file or directory".
    const std::string missing = ": cannot open shared object file";
    const size_t at = dlError.find(missing);
    if (at != std::string::npos) {
        const std::string lib = dlError.substr(0, at);
        if (lib != module)
            return "the CUDA backend needs " + lib + libraryAdvice(lib);
    }
    return module + " cannot be loaded: " + dlError;
}

CudaOpenResult openCudaBackend(const CudaBackendOptions& options) {
    const Module m = findAndLoad();
    if (!m.open)
        return {nullptr, m.error};
    IosCudaReply reply = openWith(m, options, false);
    if (reply.status != IOS_CUDA_OK || !reply.backend)
        return {nullptr, wordStatus(reply)};
    return {std::unique_ptr<GpuBackend>(reply.backend), {}};
}

bool cudaDevicePresent() {
    const Module m = findAndLoad();
    return m.open && openWith(m, {}, true).status == IOS_CUDA_OK;
}

std::unique_ptr<GpuBackend> requireCudaBackend(const CudaBackendOptions& options) {
    // Dry runs of GPU scripts on machines without a GPU: the mock backend (timing only).
    // Unset, empty or "0": the GPU; "1": the mock; any other value: another mock device.
    if (const char* mock = std::getenv("IOS_PROFILING_MOCK");
        mock && *mock != '\0' && std::string(mock) != "0") {
        MockOptions o = MockOptions::variant(mock);
        o.mathMode = options.allowTf32 ? "tf32" : "fp32";
        return std::make_unique<MockBackend>(std::move(o));
    }
    CudaOpenResult r = openCudaBackend(options);
    if (!r.backend)
        throw UserError("no CUDA device available: " + r.error, Hint::CudaBackend);
    return std::move(r.backend);
}

} // namespace ios::profiling
