// SPDX-License-Identifier: Apache-2.0
// Writes the fuzz seed corpora: each small bundled model as IOS JSON and as native JSON, the
// native ones with explicit parts so the fuzzer starts from inputs that exercise them.
#include "util/file_util.h"
#include "io/ios_json.h"
#include "io/native_json.h"
#include "util/error.h"

#include <filesystem>
#include <iostream>

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: fuzz_make_seeds SAMPLE_MODELS_DIR OUT_DIR\n";
        return 1;
    }
    namespace fs = std::filesystem;
    const fs::path in = argv[1];
    const fs::path out = argv[2];
    try {
        for (const char* name : {"demo_figure2", "demo_inception_module", "demo_random_dag"}) {
            const fs::path src = in / (std::string(name) + ".ios.json");
            const std::string text = ios::util::readTextFile(src);
            ios::ir::Graph graph = ios::io::parseIosJson(text, src.string());
            ios::util::writeFileAtomically(out / "ios" / src.filename(), text);
            // Two parts: the first operator, then the rest.
            for (ios::ir::Block& b : graph.blocks) {
                b.parts = {{}, {}};
                for (const ios::ir::Node* op : b.operators())
                    b.parts[b.parts[0].empty() ? 0 : 1].push_back(op->name);
                if (b.parts[1].empty())
                    b.parts.pop_back();
            }
            ios::util::writeFileAtomically(out / "native" / (std::string(name) + ".json"),
                                         ios::io::writeNativeJson(graph));
        }
    } catch (const ios::UserError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    }
    return 0;
}
