// SPDX-License-Identifier: Apache-2.0
// What a measurement is of, independent of any model (docs/formats.md "Measurement store"):
// a stage's canonical signature is its kind, then per group (in stage order) the binary
// signatures of its operators (appendOperatorSignature: kind, shapes, attributes, input
// channel ranges, nested nodes — never names). Two stages with equal signatures launch the
// same kernels, in whichever model they sit, so one measurement serves both. The measurement
// store keys by it, `profile --shard` partitions by its hash, and the canonical stage memo's
// class ids (stage_memo.h) are the in-process form of the same idea.
#pragma once

#include "ir/block_dag.h"
#include "ir/validate.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ios::cost {

struct StageSignature {
    schedule::StageKind kind = schedule::StageKind::Parallel;
    std::vector<std::vector<std::string>> groups; // per group, per operator: its signature
    friend bool operator==(const StageSignature&, const StageSignature&) = default;
    friend auto operator<=>(const StageSignature&, const StageSignature&) = default;
};

// The signature of `stage` of `dag`; `shapeOf` as for CanonicalStages::classify.
StageSignature stageSignature(const ir::BlockDag& dag, const schedule::Stage& stage,
                              const ir::ShapeLookup& shapeOf);

// One byte string for the whole signature, unambiguous (kind byte, then per group its size
// and per operator its length, each as 4 little-endian bytes, then the bytes): equal strings
// for equal signatures and only for them.
std::string signatureBytes(const StageSignature& signature);

// The inverse of signatureBytes: nullopt unless `bytes` is exactly one well-formed signature
// (a known kind, at least one group, no empty group or operator, nothing left over). Stores
// and JSON imports use it to check the bytes they are given.
std::optional<StageSignature> parseSignatureBytes(std::string_view bytes);

// 64-bit FNV-1a: the same value on every machine and in every build (unlike std::hash), for
// partitions that must agree across processes (profile --shard) and short stable ids.
uint64_t stableHash64(std::string_view bytes);

// stableHash64 as 16 lowercase hex digits.
std::string stableHashHex(std::string_view bytes);

// A model's identity by content (16 hex digits, stableHashHex): of a canonical text of every
// node — its name, operator signature (appendOperatorSignature: kind, shapes, attributes,
// nested nodes) and inputs (producer names and channel ranges), the input placeholder's
// shape — and not of the graph's name, its hint names or the stages and parts its file lists.
// Equal for a model and its conversions to any format; different when an operator changes.
// Measurement caches record it per entry ("model_hash"), so the measurements of one model are
// never replayed for another that has its name.
std::string modelContentHash(const ir::Graph& graph);

} // namespace ios::cost
