// SPDX-License-Identifier: Apache-2.0
// Schedule files (io/schedule_file.h, docs/formats.md): a written schedule reads back equal,
// merge stages included; malformed or foreign files give one clear error naming the file.
#include "bundled_models.h"
#include "cost/simulated_gpu_cost_model.h"
#include "io/schedule_file.h"
#include "schedulers/baselines.h"
#include "schedulers/ios_dp.h"
#include "util/error.h"
#include "util/json_text.h"

#include <QTest>

using namespace ios;

namespace {

// The error `text` gives when read as a schedule of SqueezeNet.
std::string errorOf(const std::string& text) {
    const ir::Graph g = samples::loadBundledModel("squeezenet");
    const auto dags = ir::buildDags(g);
    try {
        io::parseScheduleFile(text, "s.json", g, dags);
    } catch (const UserError& e) {
        return e.what();
    }
    return "accepted";
}

} // namespace

class TestScheduleFile : public QObject {
    Q_OBJECT

private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("strategy");
        QTest::newRow("sequential") << "sequential";
        QTest::newRow("greedy") << "greedy";
        QTest::newRow("both") << "both";
    }
    void roundTrip() {
        QFETCH(QString, strategy);
        // InceptionV3's IOS-both schedule on the simulated V100 merges 1×1 convolutions.
        const ir::Graph g = samples::loadBundledModel("inception_v3");
        const auto dags = ir::buildDags(g);
        schedule::Schedule s;
        if (strategy == QStringLiteral("sequential")) {
            s = schedulers::sequential(dags);
        } else if (strategy == QStringLiteral("greedy")) {
            s = schedulers::greedy(dags);
        } else {
            const cost::SimulatedGpuCostModel cost(g, *cost::findBundledDevice("V100"));
            schedulers::Options o;
            o.strategy = schedulers::Strategy::Both;
            s = schedulers::optimize(ir::PreparedModel(g), o, cost).schedule;
        }
        const std::string text = io::writeScheduleFile(g, dags, s, "a note");
        QCOMPARE(io::parseScheduleFile(text, "s.json", g, dags), s);
        const util::Json doc = util::parseJsonText(text, "s.json");
        QCOMPARE(doc["model"].get<std::string>(), std::string("inception_v3"));
        QCOMPARE(doc["note"].get<std::string>(), std::string("a note"));
        if (strategy == QStringLiteral("both")) {
            bool merges = false; // a merge of several convolutions: its marker is kept
            for (const auto& b : s.blocks)
                for (const auto& st : b.stages)
                    merges |= st.kind == schedule::StageKind::Merge && st.operatorCount() > 1;
            QVERIFY(merges);
            QVERIFY(text.find("merge_stages") != std::string::npos);
        }
    }

    void errors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("fragment");
        const QString head =
            QStringLiteral(R"({"format": "ios-explorer-schedule", "version": 1, )");
        QTest::newRow("not json") << "{"
                                  << "s.json";
        QTest::newRow("format") << R"({"format": "x"})"
                                << "not a schedule file";
        QTest::newRow("version") << R"({"format": "ios-explorer-schedule", "version": 2})"
                                 << "\"version\" must be the integer 1";
        QTest::newRow("other model") << head + R"("model": "inception_v3", "blocks": []})"
                                     << "for model 'inception_v3', not 'squeezenet'";
        QTest::newRow("block count") << head + R"("model": "squeezenet", "blocks": []})"
                                     << "the schedule has 0 blocks";
    }
    void errors() {
        QFETCH(QString, text);
        QFETCH(QString, fragment);
        const std::string e = errorOf(text.toStdString());
        QVERIFY2(e.rfind("s.json", 0) == 0, e.c_str());
        QVERIFY2(e.find(fragment.toStdString()) != std::string::npos, e.c_str());
    }

    void badStagesNameTheProblem() {
        const ir::Graph g = samples::loadBundledModel("squeezenet");
        const auto dags = ir::buildDags(g);
        const std::string good = io::writeScheduleFile(g, dags, schedulers::sequential(dags));
        util::Json doc = util::parseJsonText(good, "s.json");

        util::Json unknown = doc;
        unknown["blocks"][0]["stages"][0][0][0] = "no_such_op";
        std::string e = errorOf(unknown.dump());
        QVERIFY2(e.find("no_such_op") != std::string::npos, e.c_str());

        util::Json missing = doc; // the block's first operator never runs
        missing["blocks"][0]["stages"].erase(0);
        e = errorOf(missing.dump());
        QVERIFY2(e.rfind("s.json", 0) == 0 && e != "accepted", e.c_str());

        util::Json merge = doc;
        merge["blocks"][0]["merge_stages"] = util::Json::array({999});
        e = errorOf(merge.dump());
        QVERIFY2(e.find("'merge_stages' holds an index that is not a stage") != std::string::npos,
                 e.c_str());
        QCOMPARE(errorOf(doc.dump()), std::string("accepted"));
    }
};

QTEST_GUILESS_MAIN(TestScheduleFile)
#include "tst_schedule_file.moc"
