// SPDX-License-Identifier: Apache-2.0
// Validation (ir::validateAndInferShapes) rejects each class of broken graph with a
// UserError that names the offending node; BlockDag parts are cut and checked as
// docs/algorithms.md §1 says.
#include "ir/block_dag.h"
#include "ir/validate.h"
#include "ir_builders.h"
#include "util/error.h"

#include <QtTest>
#include <algorithm>
#include <functional>

using namespace ios;
using namespace ios::testing;
using ir::ActType;
using ir::NodeKind;

using Mutation = std::function<void(ir::Graph&)>;
Q_DECLARE_METATYPE(Mutation)

namespace {

// in [16,8,8] → block 0: a = conv3x3 p1, b = conv1x1 16→8, exit c = concat(a, b) [24,8,8]
//             → block 1: d = relu(c), s = sequential(s_r = relu(c), s_c = conv1x1 24→24),
//                        exit e = global avg pool(d + s)
ir::Graph validGraph() {
    ir::Graph g;
    g.name = "valid";
    g.input = placeholder("in", {16, 8, 8});
    g.blocks.push_back(
        block(g.input,
              {conv("a", concat({val("in", 0, 16)}), 16, {3, 3}, {1, 1}, {1, 1}),
               conv("b", concat({val("a", 0, 16)}), 8, {1, 1})},
              node(NodeKind::Identity, "c", concat({val("a", 0, 16), val("b", 0, 8)}))));
    ir::Node s = sequential("s", {node(NodeKind::Relu, "s_r", concat({val("c", 0, 24)})),
                                  conv("s_c", concat({val("s_r", 0, 24)}), 24, {1, 1})});
    g.blocks.push_back(block(
        g.blocks[0].exitNode, {node(NodeKind::Relu, "d", concat({val("c", 0, 24)})), std::move(s)},
        globalPool("e", sum({val("d", 0, 24), val("s", 0, 24)}), ir::PoolType::GlobalAvg)));
    return g;
}

ir::Node& op(ir::Graph& g, const std::string& name) {
    for (ir::Block& b : g.blocks) {
        for (ir::Node& n : b.innerNodes) {
            if (n.name == name)
                return n;
            for (ir::Node& inner : n.nodes)
                if (inner.name == name)
                    return inner;
        }
        if (b.exitNode.name == name)
            return b.exitNode;
    }
    throw std::logic_error("test graph has no node " + name);
}

// Runs the check and returns the error; fails the test when none is thrown.
std::optional<UserError> validationError(ir::Graph g) {
    try {
        ir::validateAndInferShapes(g);
    } catch (const UserError& e) {
        return e;
    }
    return std::nullopt;
}

ir::Block chainBlock(int operators) {
    const ir::Node in = placeholder("in", {4, 4, 4});
    std::vector<ir::Node> inner;
    std::string prev = "in";
    for (int i = 0; i + 1 < operators; ++i) {
        inner.push_back(node(NodeKind::Relu, "n" + std::to_string(i), concat({val(prev, 0, 4)})));
        prev = inner.back().name;
    }
    return block(in, std::move(inner), node(NodeKind::Relu, "exit", concat({val(prev, 0, 4)})));
}

} // namespace

class TestIrValidation : public QObject {
    Q_OBJECT

private slots:
    void validGraphPasses();
    void unsortedNodesAreReordered();
    void errors_data();
    void errors();
    void partsBySize_data();
    void partsBySize();
    void explicitParts();
    void explicitPartErrors_data();
    void explicitPartErrors();
};

void TestIrValidation::validGraphPasses() {
    ir::Graph g = validGraph();
    ir::validateAndInferShapes(g);
    QCOMPARE(op(g, "c").outputShape, (ir::TensorShape{24, 8, 8}));
    QCOMPARE(op(g, "s_c").outputShape, (ir::TensorShape{24, 8, 8}));
    QCOMPARE(op(g, "e").outputShape, (ir::TensorShape{24, 1, 1}));
    QCOMPARE(g.blocks[1].enterNode.outputShape, (ir::TensorShape{24, 8, 8}));
}

// A file need not list a block's nodes in dependency order: validation puts them in one (the
// lowest file position first), so that file order is an execution order downstream.
void TestIrValidation::unsortedNodesAreReordered() {
    ir::Graph g = validGraph();
    std::swap(g.blocks[0].innerNodes[0], g.blocks[0].innerNodes[1]); // b (reads a) before a
    ir::validateAndInferShapes(g);
    QCOMPARE(g.blocks[0].innerNodes[0].name, std::string("a"));
    QCOMPARE(g.blocks[0].innerNodes[1].name, std::string("b"));
    QCOMPARE(op(g, "b").outputShape, (ir::TensorShape{8, 8, 8}));

    // A long chain listed backwards: linear, not one pass per node (20 000 passes hung).
    ir::Graph chain;
    chain.name = "chain";
    chain.input = placeholder("in", {4, 4, 4});
    chain.blocks.push_back(chainBlock(20000));
    std::reverse(chain.blocks[0].innerNodes.begin(), chain.blocks[0].innerNodes.end());
    ir::validateAndInferShapes(chain);
    for (int i = 0; i < 19999; ++i)
        QCOMPARE(chain.blocks[0].innerNodes[static_cast<size_t>(i)].name, "n" + std::to_string(i));
}

void TestIrValidation::errors_data() {
    QTest::addColumn<Mutation>("mutate");
    QTest::addColumn<QString>("node");    // UserError::node()
    QTest::addColumn<QString>("message"); // a fragment of UserError::message()

    auto row = [](const char* tag, Mutation m, const char* nodeName, const char* fragment) {
        QTest::newRow(tag) << m << QString::fromUtf8(nodeName) << QString::fromUtf8(fragment);
    };
    constexpr int64_t huge = int64_t{1} << 40;

    // references
    row(
        "unknown input", [](ir::Graph& g) { op(g, "b").inputs = concat({val("zz", 0, 16)}); }, "b",
        "unknown input 'zz'");
    row(
        "input from another block",
        [](ir::Graph& g) { op(g, "d").inputs = concat({val("a", 0, 16)}); }, "d",
        "input 'a' lies outside block 1");
    row(
        "cycle", [](ir::Graph& g) { op(g, "a").inputs = concat({val("b", 0, 8)}); }, "a",
        "dependency cycle");
    row(
        "exit node read inside its block",
        [](ir::Graph& g) {
            g.blocks[0].innerNodes.push_back(node(NodeKind::Relu, "x", concat({val("c", 0, 24)})));
        },
        "x", "reads 'c', the exit node of block 0");
    row(
        "self loop", [](ir::Graph& g) { op(g, "d").inputs = concat({val("d", 0, 24)}); }, "d",
        "dependency cycle");
    row(
        "channel range past the end",
        [](ir::Graph& g) { op(g, "b").inputs = concat({val("a", 0, 17)}); }, "b",
        "channel range [0, 17) of input 'a' is out of bounds (it has 16 channels)");
    row(
        "empty channel range", [](ir::Graph& g) { op(g, "b").inputs = concat({val("a", 5, 5)}); },
        "b", "out of bounds");
    row(
        "negative channel range",
        [](ir::Graph& g) { op(g, "b").inputs = concat({val("a", -1, 4)}); }, "b", "out of bounds");
    row(
        "no inputs", [](ir::Graph& g) { op(g, "d").inputs.clear(); }, "d", "has no inputs");
    row(
        "empty term", [](ir::Graph& g) { op(g, "d").inputs = {ir::Term{}}; }, "d",
        "empty input term");

    // shapes
    row(
        "term channel mismatch",
        [](ir::Graph& g) {
            op(g, "e").inputs = sum({val("d", 0, 24), val("s", 0, 16)});
        },
        "e", "different channel counts (24 vs 16 from 's')");
    row(
        "spatial mismatch",
        [](ir::Graph& g) {
            op(g, "b").conv.stride = {2, 2};
        },
        "c", "different spatial sizes (8x8 vs 4x4 from 'b')");
    row(
        "declared shape mismatch",
        [](ir::Graph& g) {
            op(g, "b").outputShape = {8, 8, 9};
        },
        "b", "declared output_shape [8, 8, 9] does not match the inferred [8, 8, 8]");
    row(
        "declared input shape of a sequential inner node",
        [](ir::Graph& g) {
            op(g, "s_r").outputShape = {1, 8, 8};
        },
        "s_r", "does not match the inferred [24, 8, 8]");
    row(
        "kernel larger than the input",
        [](ir::Graph& g) {
            op(g, "b").conv.kernel = {9, 9};
        },
        "b", "kernel 9 does not fit input extent 8 with padding 0");

    // attributes
    row(
        "zero kernel",
        [](ir::Graph& g) {
            op(g, "a").conv.kernel = {0, 3};
        },
        "a", "kernel = 0 is out of range");
    row(
        "zero stride",
        [](ir::Graph& g) {
            op(g, "a").conv.stride = {1, 0};
        },
        "a", "stride = 0 is out of range");
    row(
        "negative padding",
        [](ir::Graph& g) {
            op(g, "a").conv.padding = {-1, 1};
        },
        "a", "padding = -1 is out of range");
    row(
        "zero out_channels", [](ir::Graph& g) { op(g, "b").conv.outChannels = 0; }, "b",
        "out_channels = 0 is out of range");
    row(
        "negative out_channels", [](ir::Graph& g) { op(g, "b").conv.outChannels = -8; }, "b",
        "out_channels = -8 is out of range");
    row(
        "zero groups", [](ir::Graph& g) { op(g, "a").conv.groups = 0; }, "a",
        "groups = 0 is out of range");
    row(
        "groups not dividing", [](ir::Graph& g) { op(g, "a").conv.groups = 3; }, "a",
        "groups = 3 does not divide input channels (16) and out_channels (16)");
    row(
        "groups not dividing out_channels",
        [](ir::Graph& g) {
            op(g, "a").conv.groups = 4;
            op(g, "a").conv.outChannels = 18;
        },
        "a", "does not divide");
    row(
        "pool zero kernel",
        [](ir::Graph& g) {
            op(g, "e").pool.type = ir::PoolType::Max;
            op(g, "e").pool.kernel = {0, 0};
        },
        "e", "kernel = 0 is out of range");
    row(
        "pool zero stride",
        [](ir::Graph& g) {
            op(g, "e").pool.type = ir::PoolType::Avg;
            op(g, "e").pool.kernel = {2, 2};
            op(g, "e").pool.stride = {0, 2};
        },
        "e", "stride = 0 is out of range");

    // absurd sizes that would overflow int64 products
    row(
        "huge out_channels", [=](ir::Graph& g) { op(g, "b").conv.outChannels = huge; }, "b",
        "out_channels = 1099511627776 is out of range");
    row(
        "huge kernel",
        [=](ir::Graph& g) {
            op(g, "a").conv.kernel = {huge, huge};
        },
        "a", "kernel = 1099511627776 is out of range");
    row(
        "huge padding",
        [=](ir::Graph& g) {
            op(g, "a").conv.padding = {huge, 1};
        },
        "a", "padding = 1099511627776 is out of range");
    row(
        "huge input dimension",
        [=](ir::Graph& g) {
            g.input.outputShape = {16, huge, 8};
        },
        "in", "is too large");
    row(
        "input elements overflow",
        [](ir::Graph& g) {
            g.input.outputShape = {1 << 20, 1 << 20, 1 << 20};
        },
        "in", "is too large");
    row(
        "empty input shape",
        [](ir::Graph& g) {
            g.input.outputShape = {16, 0, 8};
        },
        "in", "is empty");
    row(
        "padding grows the output past the largest extent",
        [](ir::Graph& g) {
            g.input.outputShape = {16, 1 << 20, 8};
            op(g, "a").conv.kernel = {1, 1};
            op(g, "a").conv.padding = {4000, 0};
        },
        "a", "inferred output shape [16, 1056576, 8] is too large");
    row(
        "output with too many elements",
        [](ir::Graph& g) {
            g.input.outputShape = {16, 1024, 1024};
            op(g, "a").conv.outChannels = 1 << 20;
        },
        "a", "inferred output shape [1048576, 1024, 1024] is too large");

    // names and the block chain
    row(
        "duplicate names", [](ir::Graph& g) { op(g, "d").name = "a"; }, "a", "duplicate node name");
    row(
        "duplicate name inside a sequential", [](ir::Graph& g) { op(g, "s_c").name = "d"; }, "d",
        "duplicate node name");
    row(
        "empty name", [](ir::Graph& g) { op(g, "d").name.clear(); }, "", "empty name");
    row(
        "block entering from the wrong node",
        [](ir::Graph& g) {
            g.blocks[1].enterName = "b";
            g.blocks[1].enterNode.name = "b";
        },
        "b", "block 1 must enter from 'c' (the previous block's exit), not 'b'");
    row(
        "first block not entering from the input",
        [](ir::Graph& g) {
            g.blocks[0].enterName = "zz";
            g.blocks[0].enterNode.name = "zz";
        },
        "zz", "block 0 must enter from 'in'");
    row(
        "input is not a placeholder", [](ir::Graph& g) { g.input.kind = NodeKind::Relu; }, "in",
        "must be a placeholder");
    row(
        "placeholder inside a block", [](ir::Graph& g) { op(g, "d").kind = NodeKind::Placeholder; },
        "d", "placeholder may only be the model input");
    row(
        "no blocks", [](ir::Graph& g) { g.blocks.clear(); }, "", "the model has no blocks");

    // sequential inner nodes
    row(
        "sequential inner node not reading the previous one",
        [](ir::Graph& g) { op(g, "s_c").inputs = concat({val("c", 0, 24)}); }, "s_c",
        "must read exactly the previous inner node 's_r'");
    row(
        "sequential inner node with a bad kernel",
        [](ir::Graph& g) {
            op(g, "s_c").conv.kernel = {0, 1};
        },
        "s_c", "kernel = 0");
    row(
        "sequential inner node with a bad channel range",
        [](ir::Graph& g) { op(g, "s_c").inputs = concat({val("s_r", 0, 25)}); }, "s_c",
        "out of bounds");
    row(
        "sequential first node reading an unknown input",
        [](ir::Graph& g) { op(g, "s_r").inputs = concat({val("zz", 0, 24)}); }, "s",
        "unknown input 'zz'");
    row(
        "sequential inside a sequential",
        [](ir::Graph& g) {
            ir::Node& s_c = op(g, "s_c");
            ir::Node wrapped = sequential("s_inner", {s_c});
            wrapped.inputs = s_c.inputs;
            s_c = wrapped;
        },
        "s_inner", "may not contain a sequential node");
    row(
        "empty sequential", [](ir::Graph& g) { g.blocks[1].innerNodes[1].nodes.clear(); }, "s",
        "sequential node has no inner nodes");
}

void TestIrValidation::errors() {
    QFETCH(Mutation, mutate);
    QFETCH(QString, node);
    QFETCH(QString, message);

    ir::Graph g = validGraph();
    mutate(g);
    const std::optional<UserError> error = validationError(std::move(g));
    QVERIFY2(error.has_value(), "the broken graph was accepted");
    QCOMPARE(QString::fromStdString(error->node()), node);
    QVERIFY2(error->message().find(message.toStdString()) != std::string::npos, error->what());
    if (!node.isEmpty()) // the one-line text the CLI prints names the node
        QVERIFY(QString::fromUtf8(error->what()).contains(QStringLiteral("node '%1'").arg(node)));
}

void TestIrValidation::partsBySize_data() {
    QTest::addColumn<int>("operators");
    QTest::addColumn<int>("maxPartSize");
    QTest::addColumn<QList<int>>("partSizes");

    QTest::newRow("one part") << 5 << 100 << QList<int>{5};
    QTest::newRow("exact multiple") << 6 << 3 << QList<int>{3, 3};
    QTest::newRow("remainder last") << 7 << 3 << QList<int>{3, 3, 1};
    QTest::newRow("size one") << 3 << 1 << QList<int>{1, 1, 1};
    QTest::newRow("single operator") << 1 << 2 << QList<int>{1};
}

void TestIrValidation::partsBySize() {
    QFETCH(int, operators);
    QFETCH(int, maxPartSize);
    QFETCH(QList<int>, partSizes);

    const ir::BlockDag dag = ir::buildBlockDag(chainBlock(operators), maxPartSize);
    QCOMPARE(static_cast<int>(dag.ops.size()), operators);
    QCOMPARE(static_cast<qsizetype>(dag.parts.size()), partSizes.size());
    int next = 0; // consecutive chunks in file order
    for (size_t p = 0; p < dag.parts.size(); ++p) {
        QCOMPARE(static_cast<int>(dag.parts[p].size()), partSizes[static_cast<qsizetype>(p)]);
        for (int op : dag.parts[p]) {
            QCOMPARE(op, next++);
            QCOMPARE(dag.partOf[static_cast<size_t>(op)], static_cast<int>(p));
        }
    }
    for (int i = 1; i < operators; ++i) // the chain's edges
        QCOMPARE(dag.preds[static_cast<size_t>(i)], std::vector<int>{i - 1});
}

void TestIrValidation::explicitParts() {
    ir::Block b = chainBlock(5); // n0 n1 n2 n3 exit
    b.parts = {{"n1", "n0"}, {"exit", "n3", "n2"}};
    const ir::BlockDag dag = ir::buildBlockDag(b, 1); // explicit parts win over the size
    QCOMPARE(dag.parts.size(), size_t{2});
    QCOMPARE(dag.parts[0], (std::vector<int>{0, 1})); // sorted into file order
    QCOMPARE(dag.parts[1], (std::vector<int>{2, 3, 4}));
    QCOMPARE(dag.partOf, (std::vector<int>{0, 0, 1, 1, 1}));
}

void TestIrValidation::explicitPartErrors_data() {
    QTest::addColumn<QStringList>("part0");
    QTest::addColumn<QStringList>("part1");
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("message");

    QTest::newRow("operator in no part") << QStringList{"n0", "n1"} << QStringList{"exit"} << "n2"
                                         << "operator is in no part";
    QTest::newRow("operator in two parts")
        << QStringList{"n0", "n1", "n2"} << QStringList{"n2", "exit"} << "n2"
        << "operator appears in two parts";
    QTest::newRow("unknown operator")
        << QStringList{"n0", "n1", "n2", "zz"} << QStringList{"exit"} << "zz"
        << "part lists an operator that is not in the block";
    QTest::newRow("a part reads a later part") // the DP runs parts in order
        << QStringList{"n1", "n2", "exit"} << QStringList{"n0"} << "n1"
        << "reads 'n0' of the later part 1";
    QTest::newRow("the enter node is no operator")
        << QStringList{"in", "n0", "n1", "n2"} << QStringList{"exit"} << "in"
        << "not in the block";
}

void TestIrValidation::explicitPartErrors() {
    QFETCH(QStringList, part0);
    QFETCH(QStringList, part1);
    QFETCH(QString, node);
    QFETCH(QString, message);

    ir::Block b = chainBlock(4); // n0 n1 n2 exit
    for (const QStringList& names : {part0, part1}) {
        b.parts.emplace_back();
        for (const QString& n : names)
            b.parts.back().push_back(n.toStdString());
    }
    try {
        ir::buildBlockDag(b);
        QFAIL("bad parts were accepted");
    } catch (const UserError& e) {
        QCOMPARE(QString::fromStdString(e.node()), node);
        QVERIFY2(e.message().find(message.toStdString()) != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestIrValidation)
#include "tst_ir_validation.moc"
