// SPDX-License-Identifier: Apache-2.0
// Source patterns of the graph substitutions (docs/metaflow.md; MetaFlow paper §3, Fig. 4): typed
// pattern nodes with unary constraints, edges between them, which of them may read from or be
// read by operators outside the match, and a constraint over the whole match. The matcher
// maps pattern nodes depth-first onto one block's operators in file order, each operator used
// once per match, as MetaFlow's GraphXfer::run does. A pattern node that reads an earlier one
// is tried only on that operator's readers (and one with sameInputsAs only on operators with
// the same first input), so a match costs its candidates, not a pass over the block.
#pragma once

#include "ir/graph.h"

#include <functional>
#include <string>
#include <vector>

namespace ios::rewrite {

struct PatternNode {
    // Kind and attribute checks on the operator alone (e.g. "a conv with identity activation").
    std::function<bool(const ir::Node&)> accepts;
    // Indices of earlier pattern nodes this one must read (any term, any channel range).
    std::vector<int> reads;
    // Whether operators outside the match may read this node (and whether it may be the block's
    // exit, which the next block reads). Only such nodes keep their outputs visible: the
    // target maps them onto a node of the same name, so outside readers stay valid.
    bool externalOutput = true;
    // An earlier pattern node whose `inputs` this one's must equal (the pattern's accepts
    // checks it; the matcher only tries operators whose first input value has the same
    // producer). -1: none.
    int sameInputsAs = -1;
};

struct Pattern {
    std::vector<PatternNode> nodes;
    // Checked on a complete mapping (operators in pattern order): pairwise constraints such
    // as "equal strides", and edges that need more than "reads".
    std::function<bool(const std::vector<const ir::Node*>&)> accepts;
};

// Visits every mapping of `pattern` onto the operators `ops` (one block's, file order), as
// index lists in pattern order, until `visit` returns false; `consumers[i]` counts how often
// ops[i]'s output is read (by the block's operators, one per reading operator, plus one for
// the block exit). Only operators with allowed[i] are mapped (null: all). Mappings come in
// depth-first order: the first pattern node on the earliest operator first.
void forEachMatch(const Pattern& pattern, const std::vector<const ir::Node*>& ops,
                  const std::vector<int>& consumers, const std::vector<bool>* allowed,
                  const std::function<bool(const std::vector<int>&)>& visit);

// Every mapping (forEachMatch over all operators).
std::vector<std::vector<int>> matchPattern(const Pattern& pattern,
                                           const std::vector<const ir::Node*>& ops,
                                           const std::vector<int>& consumers);

// Whether `reader` reads any channels of the node named `producer`.
bool readsFrom(const ir::Node& reader, const std::string& producer);

// For every operator of `ops`, the operators of `ops` that read it (ascending, each once).
std::vector<std::vector<int>> readersOf(const std::vector<const ir::Node*>& ops);

} // namespace ios::rewrite
