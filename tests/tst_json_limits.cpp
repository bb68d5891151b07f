// SPDX-License-Identifier: Apache-2.0
// JSON parsing on hostile input (engine/util/json_text.h; issue 19, defects 3 and 6): linear in
// the number of keys, duplicate keys refused by name, allocation failures at any point end in
// a UserError naming the file (never std::terminate from a destructor), and the strict
// formats (device profiles, schedule files) refuse unknown fields.
#include "cost/device_profile.h"
#include "io/model_file.h"
#include "io/schedule_file.h"
#include "ir/block_dag.h"
#include "user_error_text.h"
#include "util/error.h"
#include "util/json_text.h"

#include <QTest>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <new>

using namespace ios;

// Fault injection: while armed, the allocation after `countdown` more succeed throws (once:
// the memory a failed parse frees lets the error message be composed, as it would in a
// process under a memory limit).
namespace {
std::atomic<bool> g_armed{false};
std::atomic<long> g_countdown{0};

void* allocate(std::size_t n) {
    if (g_armed.load(std::memory_order_relaxed) &&
        g_countdown.fetch_sub(1, std::memory_order_relaxed) == 0)
        throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n))
        return p;
    throw std::bad_alloc();
}
} // namespace

void* operator new(std::size_t n) {
    return allocate(n);
}
void* operator new[](std::size_t n) {
    return allocate(n);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}

namespace {

struct Armed {
    explicit Armed(long allowed) {
        g_countdown = allowed;
        g_armed = true;
    }
    ~Armed() { g_armed = false; }
};

// The UserError's text as std::string (tests/user_error_text.h).
std::string errorOf(const std::function<void()>& f) {
    return testing::userErrorOf(f).toStdString();
}

std::string manyKeys(int n) {
    std::string text = "{";
    for (int i = 0; i < n; ++i)
        text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i);
    return text + "}";
}

const char* kProfile =
    "{\"format\": \"ios-explorer-device\", \"version\": 1, \"name\": \"X\",\n"
    " \"sm_count\": 80, \"max_ctas_per_sm\": 32, \"max_threads_per_sm\": 2048,\n"
    " \"max_registers_per_sm\": 65536, \"max_shared_memory_per_sm_kb\": 96, \"fp32_peak_tflops\": "
    "15.7,\n"
    " \"tensor_peak_tflops\": 125.0, \"dram_bandwidth_gbs\": 900, \"l2_cache_mb\": 6,\n"
    " \"launch_overhead_us\": 4.5, \"launch_latency_us\": 4.0, \"sync_overhead_us\": 12.0";

} // namespace

class TestJsonLimits : public QObject {
    Q_OBJECT

private slots:
    void millionKeysParseInLinearTime() {
        // nlohmann's ordered_json inserts each key with a linear search: a million keys took
        // far beyond ctest's timeout (80 000 keys 17 s). Now one pass.
        const int n = 1'000'000;
        const util::JsonDocument doc = util::parseJsonDocument(manyKeys(n), "big.json");
        QCOMPARE(doc.root().size(), size_t{n});
        const auto& members = doc.root().get_ref<const util::Json::object_t&>();
        QCOMPARE(members.front().first, std::string("k0"));
        QCOMPARE(members.back().first, "k" + std::to_string(n - 1));
        QCOMPARE((members.begin() + 123'456)->first, std::string("k123456")); // order kept
    }

    void duplicateKeysAreRefusedByName_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("key");
        QTest::newRow("small object") << "{\"a\": 1, \"b\": 2, \"a\": 3}"
                                      << "a";
        QTest::newRow("nested") << "{\"x\": {\"n\": 1, \"n\": 2}}"
                                << "n";
        QTest::newRow("large object (hashed)")
            << QString::fromStdString(manyKeys(1000).substr(0, manyKeys(1000).size() - 1) +
                                      ", \"k500\": 0}")
            << "k500";
        QTest::newRow("control characters escaped") << "{\"\\u001b\": 1, \"\\u001b\": 2}"
                                                    << "\\x1b";
    }
    void duplicateKeysAreRefusedByName() {
        QFETCH(QString, text);
        QFETCH(QString, key);
        const std::string e = errorOf([&] { util::parseJsonText(text.toStdString(), "d.json"); });
        QVERIFY2(e.find("d.json: duplicate key '" + key.toStdString() + "'") == 0, e.c_str());
    }

    void distinctKeysAndArraysStillParse() {
        const util::Json j = util::parseJsonText("{\"a\": [1, 2.5, \"s\", null, true, {}],\n"
                                                 "            \"b\": {\"c\": []}, \"A\": -3}",
                                                 "ok.json");
        QCOMPARE(j.dump(),
                 std::string("{\"a\":[1,2.5,\"s\",null,true,{}],\"b\":{\"c\":[]},\"A\":-3}"));
        QVERIFY(errorOf([] {
                    util::parseJsonText("[1, 2", "t.json");
                }).starts_with("t.json: not valid JSON"));
        QVERIFY(errorOf([] {
                    util::parseJsonText(std::string(100, '['), "n.json");
                }).find("nests deeper") != std::string::npos);
    }

    void allocationFailureAnywhereIsAUserError() {
        // Fails each allocation of the parse in turn: every one must end in the UserError
        // naming the file (the DOM parser let std::bad_alloc through, and the partial
        // document's destructor allocates: a failure there terminated the process).
        const std::string text =
            "{\"a\": [[1, 2, {\"b\": \"a string longer than fifteen\"}]],\n"
            "            \"c\": {\"d\": [null, true, 1.5, \"x\"], \"e\": {}}, \"f\": \"" +
            std::string(100, 'y') + "\"}";
        long failures = 0;
        for (long allowed = 0; allowed < 200; ++allowed) {
            std::string error;
            bool parsed = false;
            {
                const Armed armed(allowed);
                try {
                    const util::JsonDocument doc = util::parseJsonDocument(text, "m.json");
                    parsed = true;
                } catch (const UserError& e) {
                    error = e.message();
                }
            }
            if (parsed)
                break;
            ++failures;
            QVERIFY2(error.find("not enough memory") != std::string::npos, error.c_str());
        }
        QVERIFY(failures > 10);
    }

    void releasingADocumentDoesNotAllocate() {
        util::Json doc =
            util::parseJsonText("{\"a\": [[1, [2, [3]]], {\"b\": {\"c\": [4]}}]}", "r");
        {
            const Armed armed(0); // the next allocation throws, and would terminate here
            util::releaseJson(doc);
        }
        QVERIFY(doc.is_null());
        util::JsonDocument held(util::parseJsonText("[[[1]], {\"x\": [2]}]", "r"));
        const Armed armed(0);
        // `held` is destroyed with allocations failing: must not terminate.
    }

    void deviceProfilesRefuseUnknownFields() {
        const cost::DeviceProfile p =
            cost::parseDeviceProfile(std::string(kProfile) + "}", "p.json");
        QCOMPARE(p.name, std::string("X"));
        const std::string e = errorOf([] {
            cost::parseDeviceProfile(std::string(kProfile) + ", \"sm_cout\": 3}", "p.json");
        });
        QVERIFY2(e.starts_with("p.json: unknown field 'sm_cout' in the device profile"), e.c_str());
    }

    void scheduleFilesRefuseUnknownFields() {
        const ir::Graph g = io::loadModelFile(IOS_SOURCE_DIR "/sample_models/squeezenet.ios.json");
        const auto dags = ir::buildDags(g);
        const std::string good =
            "{\"format\": \"ios-explorer-schedule\", \"version\": 1,\n"
            "            \"model\": \"squeezenet\", \"note\": \"n\", \"blocks\": []";
        const std::string top =
            errorOf([&] { io::parseScheduleFile(good + ", \"stagez\": 1}", "s.json", g, dags); });
        QVERIFY2(top.starts_with("s.json: unknown field 'stagez' in the schedule file"),
                 top.c_str());
        std::string blocks = "[{\"stages\": [], \"merges\": []}";
        for (size_t b = 1; b < g.blocks.size(); ++b)
            blocks += ", {\"stages\": []}";
        const std::string block = errorOf([&] {
            io::parseScheduleFile("{\"format\": \"ios-explorer-schedule\", \"version\": 1,\n"
                                  "                \"model\": \"squeezenet\", \"blocks\": " +
                                      blocks + "]}",
                                  "s.json", g, dags);
        });
        QVERIFY2(block.starts_with("s.json: unknown field 'merges' in block 1"), block.c_str());
    }
};

QTEST_GUILESS_MAIN(TestJsonLimits)
#include "tst_json_limits.moc"
