// SPDX-License-Identifier: Apache-2.0
// The one input layer (engine/util/input_file.h): every loader refuses FIFOs, devices, symlinks
// to devices, directories and oversized files at once (by the size on disk, before reading),
// and references from one file to another stay inside its folder. Also the linear naming of
// unnamed ONNX nodes (issue 19, defect 4). A regression here hangs (a FIFO opened for reading
// blocks) or reads a GiB: ctest's timeout is the failure, no test times anything.
#include "analysis/measured_validation.h"
#include "cost/device_profile.h"
#include "cost/measurement_cache.h"
#include "io/model_file.h"
#include "io/onnx_import.h"
#include "io/schedule_file.h"
#include "io/trace_import.h"
#include "ir/block_dag.h"
#include "user_error_text.h"
#include "util/error.h"
#include "util/file_util.h"
#include "util/input_file.h"

#include <QTemporaryDir>
#include <QTest>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

using namespace ios;
namespace fs = std::filesystem;

namespace {

// The message of the UserError `f` throws ("" when it throws none).
// The UserError's text as std::string (tests/user_error_text.h).
std::string errorOf(const std::function<void()>& f) {
    return testing::userErrorOf(f).toStdString();
}

void writeFile(const fs::path& path, const std::string& text) {
    util::writeFileAtomically(path, text);
}

// Hand-encoded protobuf (the test links no ONNX classes).
std::string varint(uint64_t v) {
    std::string out;
    do {
        const auto b = static_cast<char>(v & 0x7f);
        v >>= 7;
        out += static_cast<char>(v ? (b | 0x80) : b);
    } while (v);
    return out;
}
std::string field(int num, const std::string& payload) {
    return varint(static_cast<uint64_t>(num) << 3 | 2) + varint(payload.size()) + payload;
}
std::string intField(int num, uint64_t v) {
    return varint(static_cast<uint64_t>(num) << 3) + varint(v);
}
std::string valueInfo(const std::string& name) {
    std::string shape;
    for (int d : {1, 3, 8, 8})
        shape += field(1, intField(1, static_cast<uint64_t>(d)));
    return field(1, name) + field(2, field(1, intField(1, 1) + field(2, shape)));
}
// x -> Relu -> ... -> y: `n` nodes without names.
std::string unnamedReluChain(int n) {
    std::string graph;
    for (int i = 0; i < n; ++i) {
        const std::string in = i == 0 ? "x" : "t" + std::to_string(i);
        const std::string out = i == n - 1 ? "y" : "t" + std::to_string(i + 1);
        graph += field(1, field(1, in) + field(2, out) + field(4, "Relu"));
    }
    graph += field(2, "chain") + field(11, valueInfo("x")) + field(12, valueInfo("y"));
    return intField(1, 7) + field(8, field(1, "") + intField(2, 13)) + field(7, graph);
}

} // namespace

class TestInputLayer : public QObject {
    Q_OBJECT

private slots:
    void init() {
        dir_ = std::make_unique<QTemporaryDir>();
        QVERIFY(dir_->isValid());
        root_ = dir_->path().toStdString();
    }

    void refusesWhatIsNotARegularFile_data() {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("expected");
        QTest::newRow("fifo") << "fifo"
                              << "FIFO";
        QTest::newRow("symlink to /dev/zero") << "zero"
                                              << "character device";
        QTest::newRow("directory") << "dir"
                                   << "directory";
    }
    void refusesWhatIsNotARegularFile() {
        QFETCH(QString, kind);
        QFETCH(QString, expected);
        const fs::path p = root_ / (kind.toStdString() + ".json");
        if (kind == "fifo")
            QCOMPARE(::mkfifo(p.c_str(), 0600), 0);
        else if (kind == "zero")
            fs::create_symlink("/dev/zero", p);
        else
            fs::create_directory(p);
        const std::string exp = expected.toStdString();
        for (const util::InputKind k : {util::InputKind::Model, util::InputKind::MeasurementCache,
                                        util::InputKind::Results, util::InputKind::Text}) {
            const std::string e = errorOf([&] { util::readInputFile(p, k); });
            QVERIFY2(e.find(exp) != std::string::npos && e.find(p.string()) != std::string::npos,
                     e.c_str());
        }
        QVERIFY(errorOf([&] { util::readInputHead(p, 4096); }).find(exp) != std::string::npos);
        // Every loader goes through the layer.
        const ir::Graph g = io::loadModelFile(IOS_SOURCE_DIR "/sample_models/squeezenet.ios.json");
        const auto dags = ir::buildDags(g);
        const std::vector<std::function<void()>> loaders{
            [&] { io::loadModelFile(p); },
            [&] { cost::loadDevice(p.string()); },
            [&] { cost::MeasurementCache::load(p); },
            [&] { analysis::loadMeasuredResults(p); },
            [&] { io::loadScheduleFile(p, g, dags); },
            [&] { io::readChromeTrace(p); },
        };
        for (const auto& load : loaders) {
            const std::string e = errorOf(load);
            QVERIFY2(e.find(exp) != std::string::npos, e.c_str());
        }
    }

    void fifoAsPartsFileBesideAModelIsRefused() {
        const fs::path model = root_ / "m.ios.json";
        fs::copy_file(IOS_SOURCE_DIR "/sample_models/squeezenet.ios.json", model);
        QCOMPARE(::mkfifo((root_ / "m.parts.json").c_str(), 0600), 0);
        const std::string e = errorOf([&] { io::loadModelFile(model); });
        QVERIFY2(e.find("m.parts.json") != std::string::npos && e.find("FIFO") != std::string::npos,
                 e.c_str());
    }

    void refusesBySizeBeforeReading() {
        // 10 GiB sparse: refused from st_size, at once (the old reader read 1 GiB first).
        const fs::path p = root_ / "sparse.json";
        writeFile(p, "{}");
        fs::resize_file(p, uintmax_t{10} << 30);
        const std::string e = errorOf([&] { util::readInputFile(p, util::InputKind::Model); });
        QVERIFY2(e.find("10240 MiB, over the 32 MiB limit for model files") != std::string::npos,
                 e.c_str());
        QVERIFY(errorOf([&] { util::readTextFile(p); }).find("limit") != std::string::npos);
    }

    void capsDependOnTheKind() {
        const fs::path p = root_ / "two_mib.json";
        writeFile(p, std::string(2 << 20, ' '));
        QCOMPARE(util::readInputFile(p, util::InputKind::Model).size(), size_t{2} << 20);
        const std::string e =
            errorOf([&] { util::readInputFile(p, util::InputKind::DeviceProfile); });
        QVERIFY2(e.find("over the 1 MiB limit for device profile files") != std::string::npos,
                 e.c_str());
        QVERIFY(util::maxInputBytes(util::InputKind::OnnxModel) >
                util::maxInputBytes(util::InputKind::Model));
    }

    void readsExactlyTheFile() {
        const fs::path p = root_ / "a.json";
        const std::string text = std::string(200'000, 'x') + "end";
        writeFile(p, text);
        QCOMPARE(util::readInputFile(p, util::InputKind::Model), text);
        QCOMPARE(util::readInputHead(p, 10), std::string(10, 'x'));
        writeFile(p, "");
        QCOMPARE(util::readInputFile(p, util::InputKind::Model), std::string());
        const std::string missing =
            errorOf([&] { util::readInputFile(root_ / "nope.json", util::InputKind::Model); });
        QVERIFY2(missing.find("No such file") != std::string::npos, missing.c_str());
    }

    void referencesStayInsideTheirFolder_data() {
        QTest::addColumn<QString>("reference");
        QTest::addColumn<bool>("inside");
        QTest::newRow("plain") << "model.json" << true;
        QTest::newRow("subfolder") << "sub/model.json" << true;
        QTest::newRow("up and back") << "sub/../model.json" << true;
        QTest::newRow("parent") << "../model.json" << false;
        QTest::newRow("deep parent") << "sub/../../x.json" << false;
        QTest::newRow("absolute") << "/etc/passwd" << false;
        QTest::newRow("symlink out") << "out/passwd" << false;
        QTest::newRow("empty") << "" << false;
        QTest::newRow("the folder") << "." << false;
    }
    void referencesStayInsideTheirFolder() {
        QFETCH(QString, reference);
        QFETCH(bool, inside);
        const fs::path folder = root_ / "results";
        fs::create_directories(folder / "sub");
        fs::create_symlink("/etc", folder / "out");
        const std::string e = errorOf(
            [&] { util::resolveInside(folder, reference.toStdString(), "\"model\"", "r.json"); });
        if (inside)
            QVERIFY2(e.empty(), e.c_str());
        else
            QVERIFY2(e.rfind("r.json: \"model\"", 0) == 0, e.c_str());
    }

    void resultsFileCannotNameASchedulePathOutsideItsFolder() {
        analysis::MeasuredSchedule m;
        m.run = "../../etc/x";
        m.strategy = "greedy";
        m.source = "results.json";
        const std::string e = errorOf([&] { analysis::scheduleFileFor(root_, m); });
        QVERIFY2(e.find("results.json") != std::string::npos &&
                     e.find("outside") != std::string::npos,
                 e.c_str());
        m.run = "inception_v3";
        QCOMPARE(analysis::scheduleFileFor(root_, m), root_ / "inception_v3-greedy.json");
    }

    void unnamedOnnxNodesGetUniqueNamesInLinearTime() {
        if (!io::onnxSupportAvailable())
            QSKIP("built without ONNX support");
        // 100 000 unnamed nodes: the old search from _2 per node took minutes (quadratic).
        const int n = 100'000;
        const ir::Graph g = io::parseOnnx(unnamedReluChain(n), "chain.onnx");
        size_t count = 0;
        std::set<std::string> names;
        for (const auto& b : g.blocks)
            for (const ir::Node* node : b.operators()) {
                ++count;
                names.insert(node->name);
            }
        QCOMPARE(count, size_t{n});
        QCOMPARE(names.size(), size_t{n});
        // The same names as before: "node", then "_2", "_3", ... (the base is empty).
        QVERIFY(names.count("node"));
        QVERIFY(names.count("_2"));
        QVERIFY(names.count("_" + std::to_string(n)));
    }

    // Memory of an import grows by ~2 KiB per node: a graph over the node cap is refused after
    // the protobuf parse, before lowering (docs/onnx.md "Limits").
    void onnxNodeCountIsCapped() {
        if (!io::onnxSupportAvailable())
            QSKIP("built without ONNX support");
        const std::string e =
            errorOf([] { io::parseOnnx(unnamedReluChain(200'001), "huge.onnx"); });
        QVERIFY2(e.find("huge.onnx") != std::string::npos, e.c_str());
        QVERIFY2(e.find("200001 nodes") != std::string::npos, e.c_str());
        QVERIFY2(e.find("at most 200000") != std::string::npos, e.c_str());
    }

private:
    std::unique_ptr<QTemporaryDir> dir_;
    fs::path root_;
};

QTEST_GUILESS_MAIN(TestInputLayer)
#include "tst_input_layer.moc"
