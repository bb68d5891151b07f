// SPDX-License-Identifier: Apache-2.0
#include "cupti_collectors.h"

#include <cstdlib>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace ios::profiling {

namespace {

std::string resultText(CUptiResult r) {
    const char* s = nullptr;
    cuptiGetResultString(r, &s);
    return s ? s : "unknown CUPTI error " + std::to_string(static_cast<int>(r));
}

// CUPTI delivers activity buffers to C callbacks, process-wide; this is their only state.
struct ActivityStore {
    std::mutex mutex;
    std::vector<KernelRecord> kernels;
    std::unordered_map<uint32_t, uint64_t> externalIds; // correlation id → trace tag
    bool callbacksRegistered = false;
};
ActivityStore& store() {
    static ActivityStore s;
    return s;
}

constexpr size_t kActivityBufferBytes = size_t{8} << 20;

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords) {
    *size = kActivityBufferBytes;
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kActivityBufferBytes));
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t validSize) {
    ActivityStore& s = store();
    std::lock_guard lock(s.mutex);
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validSize, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
            rec->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
            const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(rec);
            KernelRecord r;
            r.name = k->name ? k->name : "";
            r.streamId = k->streamId;
            r.startNs = k->start;
            r.endNs = k->end;
            r.grid = {k->gridX, k->gridY, k->gridZ};
            r.block = {k->blockX, k->blockY, k->blockZ};
            r.registersPerThread = k->registersPerThread;
            r.sharedMemoryBytes = k->staticSharedMemory + k->dynamicSharedMemory;
            r.correlationId = k->correlationId;
            r.graphNodeId = k->graphNodeId;
            s.kernels.push_back(std::move(r));
        } else if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
            const auto* e = reinterpret_cast<const CUpti_ActivityExternalCorrelation*>(rec);
            s.externalIds[e->correlationId] = e->externalId;
        }
    }
    std::free(buffer);
}

void checkCupti(CUptiResult r, const char* what) {
    if (r != CUPTI_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + resultText(r));
}

class CuptiKernelRecorder final : public KernelRecorder {
public:
    void begin() override {
        ActivityStore& s = store();
        {
            std::lock_guard lock(s.mutex);
            s.kernels.clear();
            s.externalIds.clear();
            if (!s.callbacksRegistered) {
                checkCupti(cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted),
                           "cuptiActivityRegisterCallbacks");
                s.callbacksRegistered = true;
            }
        }
        checkCupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                   "cuptiActivityEnable(CONCURRENT_KERNEL)");
        checkCupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION),
                   "cuptiActivityEnable(EXTERNAL_CORRELATION)");
        // External ids are reported for API records: cuDNN launches through the runtime or
        // the driver API, so both are enabled (their own records are dropped).
        checkCupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME),
                   "cuptiActivityEnable(RUNTIME)");
        checkCupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "cuptiActivityEnable(DRIVER)");
    }

    std::vector<KernelRecord> end() override {
        checkCupti(cuptiActivityFlushAll(1), "cuptiActivityFlushAll");
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
        ActivityStore& s = store();
        std::lock_guard lock(s.mutex);
        std::vector<KernelRecord> out = std::move(s.kernels);
        s.kernels.clear();
        for (KernelRecord& r : out)
            if (auto it = s.externalIds.find(r.correlationId); it != s.externalIds.end())
                r.tag = it->second;
        return out;
    }
};

thread_local uint64_t currentTag = 0;

// PM sampling (CUPTI ≥ 12.6): host object → config image for the metric, enable sampling on
// the device, a counter-data image to decode into, then one value per sample interval.
class PmWarpSampler final : public WarpSampler {
public:
    explicit PmWarpSampler(int device) : device_(static_cast<size_t>(device)) {}
    ~PmWarpSampler() override { release(); }

    std::string begin(uint64_t intervalNs) override {
        try {
            start(intervalNs);
            return {};
        } catch (const std::exception& e) {
            release();
            why_ = e.what();
            return why_;
        }
    }

    WarpSamples end() override {
        WarpSamples out;
        out.metric = metric_;
        if (!sampling_) {
            out.unavailable = why_.empty() ? "PM sampling was not started" : why_;
            return out;
        }
        try {
            collect(out);
        } catch (const std::exception& e) {
            out.samples.clear();
            out.unavailable = e.what();
        }
        release();
        return out;
    }

private:
    void call(CUptiResult r, const char* what) {
        if (r == CUPTI_SUCCESS)
            return;
        if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
            throw std::runtime_error(std::string("GPU performance counter access refused (") +
                                     what + ": " + resultText(r) +
                                     "); run as root or allow profiling "
                                     "(NVreg_RestrictProfilingToAdminUsers=0)");
        throw std::runtime_error(std::string("PM sampling unavailable: ") + what + ": " +
                                 resultText(r));
    }

    void start(uint64_t intervalNs) {
        CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE,
                                              nullptr};
        call(cuptiProfilerInitialize(&init), "cuptiProfilerInitialize");
        profilerInitialized_ = true;

        CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE, nullptr,
                                             device_, nullptr};
        call(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName");

        CUpti_PmSampling_GetCounterAvailability_Params avail{
            CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE, nullptr, device_, 0,
            nullptr};
        call(cuptiPmSamplingGetCounterAvailability(&avail),
             "cuptiPmSamplingGetCounterAvailability");
        availability_.resize(avail.counterAvailabilityImageSize);
        avail.pCounterAvailabilityImage = availability_.data();
        call(cuptiPmSamplingGetCounterAvailability(&avail),
             "cuptiPmSamplingGetCounterAvailability");

        CUpti_Profiler_Host_Initialize_Params host{
            CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE,
            nullptr,
            CUPTI_PROFILER_TYPE_PM_SAMPLING,
            chip.pChipName,
            availability_.data(),
            nullptr};
        call(cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize");
        host_ = host.pHostObject;

        // The first metric this chip accepts: percent of the peak warps resident per SM.
        const char* candidates[] = {"sm__warps_active.avg.pct_of_peak_sustained_elapsed",
                                    "sm__warps_active.avg.per_cycle_active"};
        std::string lastError;
        for (const char* m : candidates) {
            CUpti_Profiler_Host_ConfigAddMetrics_Params add{
                CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE, nullptr, host_, &m, 1};
            const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add);
            if (r == CUPTI_SUCCESS) {
                metric_ = m;
                break;
            }
            lastError = std::string(m) + ": " + resultText(r);
        }
        if (metric_.empty())
            throw std::runtime_error("PM sampling: no active-warps metric on this chip (" +
                                     lastError + ")");
        CUpti_Profiler_Host_GetConfigImageSize_Params size{
            CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE, nullptr, host_, 0};
        call(cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize");
        config_.resize(size.configImageSize);
        CUpti_Profiler_Host_GetConfigImage_Params image{
            CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE, nullptr, host_, config_.size(),
            config_.data()};
        call(cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage");

        CUpti_PmSampling_Enable_Params enable{CUpti_PmSampling_Enable_Params_STRUCT_SIZE, nullptr,
                                              device_, nullptr};
        call(cuptiPmSamplingEnable(&enable), "cuptiPmSamplingEnable");
        object_ = enable.pPmSamplingObject;

        CUpti_PmSampling_SetConfig_Params set{};
        set.structSize = CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE;
        set.pPmSamplingObject = object_;
        set.configSize = config_.size();
        set.pConfig = config_.data();
        set.hardwareBufferSize = size_t{512} << 20;
        set.samplingInterval = intervalNs;
        set.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
        set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
        call(cuptiPmSamplingSetConfig(&set), "cuptiPmSamplingSetConfig");

        const char* metric = metric_.c_str();
        CUpti_PmSampling_GetCounterDataSize_Params dataSize{};
        dataSize.structSize = CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE;
        dataSize.pPmSamplingObject = object_;
        dataSize.pMetricNames = &metric;
        dataSize.numMetrics = 1;
        dataSize.maxSamples = kMaxSamples;
        call(cuptiPmSamplingGetCounterDataSize(&dataSize), "cuptiPmSamplingGetCounterDataSize");
        counterData_.resize(dataSize.counterDataSize);
        CUpti_PmSampling_CounterDataImage_Initialize_Params initData{
            CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE, nullptr, object_,
            counterData_.size(), counterData_.data()};
        call(cuptiPmSamplingCounterDataImageInitialize(&initData),
             "cuptiPmSamplingCounterDataImageInitialize");

        CUpti_PmSampling_Start_Params startParams{CUpti_PmSampling_Start_Params_STRUCT_SIZE,
                                                  nullptr, object_};
        call(cuptiPmSamplingStart(&startParams), "cuptiPmSamplingStart");
        sampling_ = true;
    }

    void collect(WarpSamples& out) {
        CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE, nullptr,
                                          object_};
        call(cuptiPmSamplingStop(&stop), "cuptiPmSamplingStop");
        sampling_ = false;
        CUpti_PmSampling_DecodeData_Params decode{};
        decode.structSize = CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE;
        decode.pPmSamplingObject = object_;
        decode.pCounterDataImage = counterData_.data();
        decode.counterDataImageSize = counterData_.size();
        call(cuptiPmSamplingDecodeData(&decode), "cuptiPmSamplingDecodeData");

        CUpti_PmSampling_GetCounterDataInfo_Params info{};
        info.structSize = CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE;
        info.pCounterDataImage = counterData_.data();
        info.counterDataImageSize = counterData_.size();
        call(cuptiPmSamplingGetCounterDataInfo(&info), "cuptiPmSamplingGetCounterDataInfo");
        const char* metric = metric_.c_str();
        for (size_t i = 0; i < info.numCompletedSamples; ++i) {
            CUpti_PmSampling_CounterData_GetSampleInfo_Params sample{};
            sample.structSize = CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE;
            sample.pPmSamplingObject = object_;
            sample.pCounterDataImage = counterData_.data();
            sample.counterDataImageSize = counterData_.size();
            sample.sampleIndex = i;
            call(cuptiPmSamplingCounterDataGetSampleInfo(&sample),
                 "cuptiPmSamplingCounterDataGetSampleInfo");
            double value = 0;
            CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{};
            eval.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE;
            eval.pHostObject = host_;
            eval.pCounterDataImage = counterData_.data();
            eval.counterDataImageSize = counterData_.size();
            eval.rangeIndex = i;
            eval.ppMetricNames = &metric;
            eval.numMetrics = 1;
            eval.pMetricValues = &value;
            call(cuptiProfilerHostEvaluateToGpuValues(&eval),
                 "cuptiProfilerHostEvaluateToGpuValues");
            out.samples.push_back({sample.startTimestamp, sample.endTimestamp, value});
        }
        if (decode.overflow)
            out.unavailable = "hardware buffer overflowed: later samples are missing";
    }

    void release() {
        if (object_) {
            if (sampling_) {
                CUpti_PmSampling_Stop_Params stop{CUpti_PmSampling_Stop_Params_STRUCT_SIZE, nullptr,
                                                  object_};
                cuptiPmSamplingStop(&stop);
                sampling_ = false;
            }
            CUpti_PmSampling_Disable_Params disable{CUpti_PmSampling_Disable_Params_STRUCT_SIZE,
                                                    nullptr, object_};
            cuptiPmSamplingDisable(&disable);
            object_ = nullptr;
        }
        if (host_) {
            CUpti_Profiler_Host_Deinitialize_Params d{
                CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE, nullptr, host_};
            cuptiProfilerHostDeinitialize(&d);
            host_ = nullptr;
        }
        if (profilerInitialized_) {
            CUpti_Profiler_DeInitialize_Params d{CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE,
                                                 nullptr};
            cuptiProfilerDeInitialize(&d);
            profilerInitialized_ = false;
        }
    }

    static constexpr uint32_t kMaxSamples = 20000;
    size_t device_;
    bool profilerInitialized_ = false;
    bool sampling_ = false;
    CUpti_Profiler_Host_Object* host_ = nullptr;
    CUpti_PmSampling_Object* object_ = nullptr;
    std::vector<uint8_t> availability_, config_, counterData_;
    std::string metric_, why_;
};

} // namespace

std::unique_ptr<KernelRecorder> makeCuptiKernelRecorder() {
    return std::make_unique<CuptiKernelRecorder>();
}

void setCuptiTraceTag(uint64_t tag) {
    uint64_t popped = 0;
    if (currentTag != 0)
        cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &popped);
    currentTag = tag;
    if (tag != 0)
        cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, tag);
}

std::unique_ptr<WarpSampler> makePmWarpSampler(int device) {
    return std::make_unique<PmWarpSampler>(device);
}

uint64_t cuptiStreamId(void* stream) {
    uint32_t id = 0;
    checkCupti(cuptiGetStreamIdEx(nullptr, static_cast<CUstream>(stream), 0, &id),
               "cuptiGetStreamIdEx");
    return id;
}

} // namespace ios::profiling
