#include "cost/stage_signature.h"

#include "cost/stage_memo.h"

#include <cstdio>

namespace ios::cost {

namespace {

void appendLength(std::string& out, size_t n) {
    const auto v = static_cast<uint32_t>(n);
    for (int shift = 0; shift < 32; shift += 8)
        out += static_cast<char>((v >> shift) & 0xffU);
}

} // namespace

StageSignature stageSignature(const ir::BlockDag& dag, const schedule::Stage& stage,
                              const ir::ShapeLookup& shapeOf) {
    StageSignature s;
    s.kind = stage.kind;
    s.groups.reserve(stage.groups.size());
    for (const schedule::Group& group : stage.groups) {
        std::vector<std::string>& ops = s.groups.emplace_back();
        ops.reserve(group.size());
        for (int op : group)
            appendOperatorSignature(*dag.ops[static_cast<size_t>(op)], shapeOf, ops.emplace_back());
    }
    return s;
}

std::string signatureBytes(const StageSignature& signature) {
    std::string out;
    out += static_cast<char>(signature.kind);
    appendLength(out, signature.groups.size());
    for (const std::vector<std::string>& group : signature.groups) {
        appendLength(out, group.size());
        for (const std::string& op : group) {
            appendLength(out, op.size());
            out += op;
        }
    }
    return out;
}

uint64_t stableHash64(std::string_view bytes) {
    uint64_t h = 14695981039346656037ULL;
    for (char c : bytes) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h;
}

std::string stableHashHex(std::string_view bytes) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx",
                  static_cast<unsigned long long>(stableHash64(bytes)));
    return text;
}

} // namespace ios::cost
