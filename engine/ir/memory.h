// SPDX-License-Identifier: Apache-2.0
// Activation memory of a schedule (Serenity, MLSys 2020, §3.1 and Algorithm 1 lines 13-17;
// docs/memory.md). A block is a memory problem: operators that each produce one tensor, and
// the tensors they read. Walking a schedule step by step, a step allocates its operators'
// outputs, the sample peak is taken with inputs and outputs live together, and then every
// tensor whose consumers have all run is freed (sinks never are).
#pragma once

#include "ir/block_dag.h"
#include "ir/graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ios::ir {

struct MemoryOptions {
    int64_t batch = 1;
    int64_t bytesPerElement = 4;
    // --assembly materialized: an operator other than identity/element whose input is a
    // concatenation of several terms or a sum gets an assembly operator before it that
    // allocates the assembled input (TFLite's explicit CONCAT/ADD operators).
    bool materializedAssembly = false;
    // --sequential-transients: a sequential holds max_k(out_{k-1} + out_k) while it runs
    // (its inner nodes' adjacent outputs), not only its own output.
    bool sequentialTransients = false;
    // --count-weights: the block's weight bytes are added to every sample as a constant.
    bool countWeights = false;
};

// Throws UserError for batch or bytes per element below 1 or absurdly large.
void checkMemoryOptions(const MemoryOptions& options);

// Bytes of a C×H×W tensor at the options' batch and precision (checked: UserError on overflow).
int64_t tensorBytes(const TensorShape& shape, const MemoryOptions& options);

struct MemoryProblem {
    struct Tensor {
        std::string name;           // the node that produces it (the block input: enter name)
        int64_t bytes = 0;          // allocated in full by its first producer
        std::vector<int> producers; // ops writing it; empty: the block input, live at step 0
        std::vector<int> consumers; // ops reading it, ascending
        bool sink = false;          // never freed: the block's exit, dangling outputs
    };
    struct Op {
        std::string name;
        int blockOp = -1;            // index into BlockDag::ops; -1: inserted (assembly)
        int output = -1;             // tensor index
        std::vector<int> inputs;     // tensor indices, ascending, distinct
        int64_t transientBytes = 0;  // live during this step only (sequential transients)
        int64_t accumulateBytes = 0; // temporary when the output is already allocated (a later
                                     // member of an accumulation group, docs/memory.md)
    };
    std::string name; // the block (its enter name) or the model
    std::vector<Tensor> tensors;
    std::vector<Op> ops;                        // topological; file order where free
    std::vector<std::vector<int>> preds, succs; // op dependencies, ascending
    std::vector<int> opOfBlockOp;               // block operator → its op (-1: none)
    std::vector<int> assemblyOf;                // block operator → its assembly op (-1: none)
    int64_t constantBytes = 0;                  // weights, when counted

    int64_t totalBytes() const; // every tensor once + constant: an upper bound of any peak
};

// The memory problem of block `blockIndex` of a validated graph. Throws UserError naming a
// node whose bytes overflow.
MemoryProblem blockMemoryProblem(const Graph& graph, const BlockDag& dag, int blockIndex,
                                 const MemoryOptions& options);

// Every block's problem, in block order.
std::vector<MemoryProblem> modelMemoryProblems(const Graph& graph,
                                               const std::vector<BlockDag>& dags,
                                               const MemoryOptions& options);

// The whole model as one problem (blocks chained: a block's exit is freed after the next
// block's last reader, only the last exit is a sink). Its peak is at most the largest block
// peak; used for --partition none.
MemoryProblem joinedMemoryProblem(const std::vector<MemoryProblem>& blocks);

// Derives preds/succs from the tensors (an op depends on every producer of its inputs) and
// checks that ops are topological (std::logic_error otherwise: a bug in a builder).
void finishMemoryProblem(MemoryProblem& problem);

// Steps of a schedule: each step a set of ops allocated together (one op: an order).
using MemorySteps = std::vector<std::vector<int>>;

// The memory walk of one schedule.
struct MemoryWalk {
    int64_t peak = 0;
    int peakStep = -1;                    // first step reaching the peak (-1: no steps)
    std::vector<int64_t> stepPeak;        // sample at each step (inputs and outputs live)
    std::vector<int64_t> liveAfter;       // bytes live after each step's frees
    std::vector<std::vector<int>> liveAt; // tensors live at each step's sample (ascending)
};

// Walks `steps` (every op exactly once, dependencies before their consumers). `keepLive`
// fills liveAt. Throws UserError naming the op for an op missing, repeated or run before a
// producer of its input.
MemoryWalk walkMemory(const MemoryProblem& problem, const MemorySteps& steps,
                      bool keepLive = false);

// One op per step.
MemorySteps orderSteps(const std::vector<int>& order);
// Peak of an operator order (Serenity's μ_peak).
int64_t orderPeak(const MemoryProblem& problem, const std::vector<int>& order);

// The ops of `blockOps` (block operator indices) with their assembly ops, in op order: what
// one stage of a stage schedule allocates at its start.
std::vector<int> stepOfBlockOps(const MemoryProblem& problem, const std::vector<int>& blockOps);

// Ready ops queued in file order, a finished op's consumers appended in file order (Kahn
// FIFO, the soft budget's upper bound). File order is 0..n-1.
std::vector<int> kahnOrder(const MemoryProblem& problem);

// TFLite's simple memory arena (Serenity Fig. 12(a)): the block input is placed first; per op
// its output is placed in the lowest-offset gap that fits it best (smallest fitting gap,
// lowest offset among equals), else on top; an op's temporaries (an accumulation group's later
// member, a sequential's transients) get a scratch block for the step; the scratch and the
// inputs whose consumers are done are released after the op. Offsets aligned to 4 bytes.
// Returns the high-water mark (the footprint).
int64_t arenaFootprint(const MemoryProblem& problem, const std::vector<int>& order);

// The same arena replayed over steps (Serenity Fig. 12: its footprint against the live bytes,
// step by step): a step places every output of its ops (in op order), then releases the
// inputs whose consumers are all done. Element i is the high-water mark after step i, plus
// the constant bytes; one op per step gives arenaFootprint's replay, the last element its
// result. The steps are not checked (walk them with walkMemory first).
std::vector<int64_t> arenaSteps(const MemoryProblem& problem, const MemorySteps& steps);

} // namespace ios::ir
