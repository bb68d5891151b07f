// SPDX-License-Identifier: Apache-2.0
// Stream programs as JSON (docs/formats.md "Stream programs"): per block, the instructions of
// schedule::StreamProgram in issue order, operators named by their node names. `ios-sched
// streams` prints and writes them (--json, -o) and reads them back (--load).
#pragma once

#include "io/provenance.h"
#include "ir/block_dag.h"
#include "schedule/stream_program.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace ios::io {

// A program file's limits are the programs' own (schedule/stream_program.h: stream numbers
// 0..kMaxProgramStreams-1, events 0..kMaxProgramEvent) and the schedule file's size cap
// (util::maxInputBytes(InputKind::Schedule)); the writer refuses what the reader would.

// {"model", "policy", "latency_ms", "blocks": [{"block", "streams", "events", "program"}]},
// one entry per block in order; `program[b]` must be a program of `dags[b]`.
// With `provenance`, the document carries it (io/provenance.h) after "latency_ms".
nlohmann::ordered_json programJson(const std::string& model, const std::string& policy,
                                   double latencyMs, const std::vector<ir::BlockDag>& dags,
                                   const schedule::Program& program,
                                   const Provenance* provenance = nullptr);

// The program a document describes, checked strictly and verified (schedule::verifyProgram):
// a UserError naming `file`, the block, the instruction and the node for an unknown field or
// op, an unknown node, a missing or out-of-range stream or event, counts that disagree, a
// synthetic name that is a model node, a wrong block count or an invalid program. A non-empty
// `model` must equal the document's "model".
schedule::Program programFromJson(const nlohmann::json& doc, const std::vector<ir::BlockDag>& dags,
                                  const std::string& file, const std::string& model = {});
// The same for an insertion-ordered document (what util::parseJsonText gives).
schedule::Program programFromJson(const nlohmann::ordered_json& doc,
                                  const std::vector<ir::BlockDag>& dags, const std::string& file,
                                  const std::string& model = {});

// The text the writer puts in a file: programJson pretty-printed (two-space indent, as
// `--json` prints it) plus a newline. Throws ios::UserError when the program is outside the
// limits above or the text is larger than the reader takes (the schedule file cap).
std::string programFileText(const std::string& model, const std::string& policy, double latencyMs,
                            const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                            const Provenance* provenance = nullptr);

// The program of a program file's text (`source` names it in messages): parsed with the
// project's JSON limits (util/json_text.h), then as programFromJson. With `graph`, a
// provenance naming another model content hash is refused (io::checkProvenanceModel).
schedule::Program parseProgramFile(std::string_view text, const std::string& source,
                                   const std::vector<ir::BlockDag>& dags,
                                   const std::string& model = {}, const ir::Graph* graph = nullptr);

// Reads a program file (util::readInputFile, the schedule-file cap) for a model with `dags`.
schedule::Program readProgramFile(const std::filesystem::path& path,
                                  const std::vector<ir::BlockDag>& dags,
                                  const std::string& model = {}, const ir::Graph* graph = nullptr);

// Writes programFileText atomically (util::writeFileAtomically); commands that write several
// outputs stage programFileText in their util::OutputTransaction instead.
void writeProgramFile(const std::filesystem::path& path, const std::string& model,
                      const std::string& policy, double latencyMs,
                      const std::vector<ir::BlockDag>& dags, const schedule::Program& program,
                      const Provenance* provenance = nullptr);

} // namespace ios::io
