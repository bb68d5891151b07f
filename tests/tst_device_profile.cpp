// SPDX-License-Identifier: Apache-2.0
// Device profiles: the bundled ones load with their spec figures, user files load, and
// malformed profiles fail with an error naming the file and the field.
#include "cost/device_profile.h"
#include "cost/kernel_model.h"
#include "ir_builders.h"
#include "util/error.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace ios;
using namespace ios::cost;

namespace {

// Replaces `"key": old` in the V100 profile text.
std::string v100With(const std::string& key, const std::string& value) {
    std::string text = writeDeviceProfile(*findBundledDevice("V100"));
    const std::string needle = "\"" + key + "\": ";
    const auto at = text.find(needle);
    if (at == std::string::npos)
        return text;
    const auto begin = at + needle.size();
    const auto end = text.find_first_of(",\n", begin);
    return text.replace(begin, end - begin, value);
}

// The V100 profile text with `"key": value` added.
std::string v100Plus(const std::string& key, const std::string& value) {
    std::string text = writeDeviceProfile(*findBundledDevice("V100"));
    text.erase(text.find("\"sources\""), std::string::npos); // drop sources and what follows
    return text + "\"" + key + "\": " + value + "}";
}

std::string v100Without(const std::string& key) {
    std::string text = writeDeviceProfile(*findBundledDevice("V100"));
    const auto at = text.find("\"" + key + "\"");
    const auto lineStart = text.rfind('\n', at);
    const auto lineEnd = text.find('\n', at);
    return text.erase(lineStart, lineEnd - lineStart);
}

} // namespace

class TestDeviceProfile : public QObject {
    Q_OBJECT

private slots:
    void bundledDevicesLoad_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("sms");
        QTest::addColumn<double>("fp32");
        QTest::addColumn<double>("bandwidth");
        QTest::newRow("V100") << "V100" << 80 << 15.7 << 900.0;
        QTest::newRow("A100") << "A100" << 108 << 19.5 << 1555.0;
        QTest::newRow("H100") << "H100" << 132 << 67.0 << 3350.0;
        QTest::newRow("RTX2080Ti") << "RTX2080Ti" << 68 << 13.4 << 616.0;
        QTest::newRow("K80") << "K80" << 13 << 2.8 << 240.0;
        QTest::newRow("A10") << "A10" << 72 << 31.2 << 600.0;
        QTest::newRow("L4") << "L4" << 58 << 30.3 << 300.0;
        QTest::newRow("L40S") << "L40S" << 142 << 91.6 << 864.0;
        QTest::newRow("RTX4090") << "RTX4090" << 128 << 82.6 << 1008.0;
        QTest::newRow("H200") << "H200" << 132 << 67.0 << 4800.0;
    }
    void bundledDevicesLoad() {
        QFETCH(QString, name);
        QFETCH(int, sms);
        QFETCH(double, fp32);
        QFETCH(double, bandwidth);
        const DeviceProfile* d = findBundledDevice(name.toLower().toStdString()); // any case
        QVERIFY(d != nullptr);
        QCOMPARE(QString::fromStdString(d->name), name);
        QCOMPARE(d->smCount, sms);
        QCOMPARE(d->fp32PeakTflops, fp32);
        QCOMPARE(d->dramBandwidthGBs, bandwidth);
        QVERIFY(d->maxThreadsPerSm >= 1024 && d->maxRegistersPerSm >= 65536);
        QVERIFY(d->launchOverheadUs > 0 && d->syncOverheadUs > 0);
        // Round trip through the file format.
        const DeviceProfile again = parseDeviceProfile(writeDeviceProfile(*d), "roundtrip");
        QCOMPARE(again.name, d->name);
        QCOMPARE(again.maxSharedMemPerSm, d->maxSharedMemPerSm);
        QCOMPARE(again.l2Bytes, d->l2Bytes);
        QCOMPARE(again.syncOverheadUs, d->syncOverheadUs);
        QCOMPARE(again.sm.computeEfficiency, d->sm.computeEfficiency);
        QCOMPARE(again.warpSchedulersPerSm, d->warpSchedulersPerSm);
        QCOMPARE(again.ffmaLatencyCycles, d->ffmaLatencyCycles);
        QCOMPARE(again.concatInPlace, d->concatInPlace);
        QCOMPARE(again.sources, d->sources);
        QCOMPARE(again.validation, d->validation);
        // Every bundled profile says where its figures come from.
        QVERIFY(d->sources.size() >= 2);
    }

    void saturationFollowsSchedulersAndLatency() {
        // The V100 calibration: 4 schedulers × 4-cycle FFMA = 16 warps (a quarter of 64).
        QCOMPARE(findBundledDevice("V100")->computeSaturationWarps(), 16.0);
        // Turing's SM holds half the warps but needs as many ready ones (the old occupancy
        // fraction gave it 8, so it ran small kernels twice as fast as a V100).
        QCOMPARE(findBundledDevice("RTX2080Ti")->maxWarpsPerSm(), 32);
        QCOMPARE(findBundledDevice("RTX2080Ti")->computeSaturationWarps(), 16.0);
        // Kepler's 9-cycle FFMA: 36 warps, more than half of its 64.
        QCOMPARE(findBundledDevice("K80")->computeSaturationWarps(), 36.0);
        QVERIFY(findBundledDevice("H100")->concatInPlace);
        QVERIFY(!findBundledDevice("V100")->concatInPlace);
    }

    void validationMarksMeasuredProfiles() {
        for (const char* measured : {"V100", "K80", "H100"})
            QVERIFY2(!findBundledDevice(measured)->validation.empty(), measured);
        for (const char* specOnly : {"A100", "RTX2080Ti", "A10", "L4", "L40S", "RTX4090", "H200"})
            QVERIFY2(findBundledDevice(specOnly)->validation.empty(), specOnly);
    }

    void computeEfficiencyIsOptional() {
        // Absent: the kernel model's default, so profiles without it keep their numbers.
        const DeviceProfile v100 =
            parseDeviceProfile(writeDeviceProfile(*findBundledDevice("V100")), "v100.json");
        QCOMPARE(v100.sm.computeEfficiency, kSmModel.computeEfficiency);
        QCOMPARE(findBundledDevice("V100")->sm.computeEfficiency, 1.0);
        QVERIFY(writeDeviceProfile(v100).find("compute_efficiency") == std::string::npos);
        // Present: read, written back, range-checked.
        std::string text = writeDeviceProfile(v100);
        text.insert(text.rfind('}'), ",\n \"compute_efficiency\": 0.5\n");
        const DeviceProfile slower = parseDeviceProfile(text, "slower.json");
        QCOMPARE(slower.sm.computeEfficiency, 0.5);
        QCOMPARE(parseDeviceProfile(writeDeviceProfile(slower), "again").sm.computeEfficiency, 0.5);
        QCOMPARE(findBundledDevice("H100")->sm.computeEfficiency, 0.7);
        const auto at = text.find("0.5\n");
        text.replace(at, 3, "1.5");
        try {
            parseDeviceProfile(text, "slower.json");
            QFAIL("compute_efficiency 1.5 was accepted");
        } catch (const UserError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("'compute_efficiency'")),
                     e.what());
        }
    }

    // Convolution math: TF32 by default where the device has TF32 tensor cores (cuDNN's and the
    // frameworks' default), NAME@fp32 / NAME@tf32 to choose, a profile's "conv_math" field.
    void convMathDefaultsAndChoice() {
        QVERIFY(findBundledDevice("A100")->tf32Convolutions());
        QVERIFY(findBundledDevice("H100")->tf32Convolutions());
        QVERIFY(!findBundledDevice("V100")->tf32Convolutions());
        QVERIFY(!findBundledDevice("RTX2080Ti")->tf32Convolutions()); // FP16 tensor cores only
        const DeviceProfile strict = loadDevice("A100@fp32");
        QVERIFY(!strict.tf32Convolutions());
        QCOMPARE(strict.name, std::string("A100@fp32"));
        QVERIFY(loadDevice("a100@tf32").tf32Convolutions());
        QVERIFY(!withConvMath(*findBundledDevice("V100"), DeviceProfile::ConvMath::Tf32)
                     .tf32Convolutions());
        // The field round-trips; a strict-fp32 user profile of a TF32 device stays strict.
        const DeviceProfile again = parseDeviceProfile(writeDeviceProfile(strict), "a.json");
        QVERIFY(!again.tf32Convolutions());
        QCOMPARE(again.tf32PeakTflops, 156.0);
        try {
            loadDevice("V100@tf32");
            QFAIL("V100@tf32 was accepted");
        } catch (const UserError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("no TF32")), e.what());
        }
    }

    // TF32 tensor-core kernels are candidates only in TF32 math, and win on a large convolution.
    void tf32KernelsOnlyInTf32Math() {
        const ir::Node conv = ios::testing::conv("c", {{ios::testing::val("x", 0, 256)}}, 256,
                                                 {3, 3}, {1, 1}, {1, 1});
        ir::Node withShape = conv;
        withShape.outputShape = {256, 28, 28};
        const ir::TensorShape input{256, 28, 28};
        const ir::ShapeLookup lookup = [&](const std::string&) { return &input; };
        const auto kernelOf = [&](const char* device) {
            return operatorKernels(withShape, lookup, 1, loadDevice(device)).front();
        };
        const KernelDesc tf32 = kernelOf("A100");
        const KernelDesc fp32 = kernelOf("A100@fp32");
        QVERIFY2(tf32.name.find("tf32") != std::string::npos, tf32.name.c_str());
        QVERIFY(tf32.peakScale > 1);
        QVERIFY2(fp32.name.find("tf32") == std::string::npos, fp32.name.c_str());
        QCOMPARE(fp32.peakScale, 1.0);
        QVERIFY(soloKernelUs(tf32, loadDevice("A100")) <
                soloKernelUs(fp32, loadDevice("A100@fp32")));
        QVERIFY(kernelOf("V100").name.find("tf32") == std::string::npos);
    }

    void defaultDeviceIsFirst() {
        QCOMPARE(bundledDevices().front().name, std::string(kDefaultDeviceName));
        QCOMPARE(bundledDeviceNames().size(), size_t{10});
    }

    void userProfileFile() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("mygpu.json")).toStdString();
        std::ofstream(path) << v100With("name", "\"MyGPU\"");
        const DeviceProfile d = loadDevice(path);
        QCOMPARE(d.name, std::string("MyGPU"));
        QCOMPARE(d.smCount, 80);
    }

    void malformed_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("not json") << "{\"format\": "
                                  << "test.json";
        QTest::newRow("array") << "[1, 2]"
                               << "must be a JSON object";
        QTest::newRow("wrong format")
            << QString::fromStdString(v100With("format", "\"other\"")) << "'format'";
        QTest::newRow("future version") << QString::fromStdString(v100With("version", "2"))
                                        << "\"version\" must be the integer 1";
        QTest::newRow("missing sm_count")
            << QString::fromStdString(v100Without("sm_count")) << "'sm_count' is missing";
        QTest::newRow("string number")
            << QString::fromStdString(v100With("sm_count", "\"80\"")) << "must be a number";
        QTest::newRow("fractional SMs")
            << QString::fromStdString(v100With("sm_count", "80.5")) << "must be an integer";
        QTest::newRow("zero SMs") << QString::fromStdString(v100With("sm_count", "0"))
                                  << "'sm_count' must be between";
        QTest::newRow("negative bandwidth")
            << QString::fromStdString(v100With("dram_bandwidth_gbs", "-5")) << "dram_bandwidth_gbs";
        QTest::newRow("absurd launch overhead")
            << QString::fromStdString(v100With("launch_overhead_us", "1e9"))
            << "launch_overhead_us";
        QTest::newRow("empty name") << QString::fromStdString(v100With("name", "\"\"")) << "'name'";
        QTest::newRow("fractional schedulers")
            << QString::fromStdString(v100Plus("warp_schedulers_per_sm", "2.5"))
            << "'warp_schedulers_per_sm' must be an integer";
        QTest::newRow("absurd FFMA latency")
            << QString::fromStdString(v100Plus("ffma_latency_cycles", "0"))
            << "'ffma_latency_cycles' must be between";
        QTest::newRow("sources not strings")
            << QString::fromStdString(v100Plus("sources", "[1]")) << "'sources' must be an array";
        QTest::newRow("concat_in_place not boolean")
            << QString::fromStdString(v100Plus("concat_in_place", "1"))
            << "'concat_in_place' must be true or false";
        QTest::newRow("unknown conv_math")
            << QString::fromStdString(v100Plus("conv_math", "\"fp16\""))
            << "'conv_math' must be \"fp32\" or \"tf32\"";
        QTest::newRow("tf32 without tensor cores")
            << QString::fromStdString(v100Plus("conv_math", "\"tf32\""))
            << "'conv_math' is \"tf32\" but the device has no TF32";
    }
    void malformed() {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parseDeviceProfile(text.toStdString(), "test.json");
            QFAIL("no error");
        } catch (const UserError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith(QStringLiteral("test.json")), qPrintable(what));
            QVERIFY2(what.contains(expected), qPrintable(what));
        }
    }

    void unknownDeviceListsBundledNames() {
        try {
            loadDevice("no-such-gpu");
            QFAIL("no error");
        } catch (const UserError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY(what.contains(QStringLiteral("no-such-gpu")));
            QVERIFY(what.contains(QStringLiteral("V100")) && what.contains(QStringLiteral("K80")));
        }
    }
};

QTEST_GUILESS_MAIN(TestDeviceProfile)
#include "tst_device_profile.moc"
