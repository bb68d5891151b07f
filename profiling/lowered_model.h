// SPDX-License-Identifier: Apache-2.0
// One model on a GpuBackend, ready to run (the executor's memory and kernels, paper §5): every
// tensor is allocated once (random weights and input, deterministic per node name), each
// operator is lowered once to kernels, and each stage's kernels (per group; a merge stage as
// ONE convolution with the members' filters concatenated, zero-padded to the largest kernel,
// and its output split back) are built once and cached. Issuing, streams and timing are the
// Executor's (executor.h).
#pragma once

#include "gpu_backend.h"
#include "ir/block_dag.h"
#include "ir/graph.h"
#include "schedule/schedule.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ios::profiling {

// A stage's kernels: group g's run in order on one stream.
struct StageProgram {
    std::vector<std::vector<Kernel>> groups;
    std::vector<std::vector<int>> ops; // per kernel: its operator's index in the dag
};

class LoweredModel {
public:
    // Allocates every tensor of a validated graph on `backend` (which must outlive this) and
    // lowers every operator. Throws ios::UserError for batch < 1 and for an operator the
    // executor cannot run (naming it).
    LoweredModel(const ir::Graph& graph, GpuBackend& backend, int batch, uint64_t seed);

    // The kernels an operator of the graph lowers to (addresses stable for this's lifetime).
    const std::vector<Kernel>& operatorKernels(const ir::Node* op) const;
    // The stage's kernels, built on first use (a merge stage uploads its merged weights then);
    // cached by cost::stageKey (addresses stable for this's lifetime).
    const StageProgram& stageProgram(const ir::BlockDag& dag, const schedule::Stage& stage);

    // Fills every activation buffer (not weights, not the input) with NaN.
    void poisonActivations();
    // The buffer of the model's output (the last block's exit node).
    BufferId outputBuffer() const;

private:
    struct Tensor {
        BufferId buffer = -1;
        TensorDims dims;
    };
    struct Lowered {
        std::vector<Kernel> kernels;
        int gatherKernels = 0; // the first kernels build the input (merge reuses them)
        Tensor input;          // what the main kernel reads (conv/pool/activation/norm/tokens)
    };

    Tensor allocateTensor(const ir::TensorShape& shape, bool activation);
    const Tensor& tensorOf(const std::string& name) const;
    Tensor gather(const std::vector<ir::Term>& inputs, ir::ElementOp op, const Tensor* into,
                  std::vector<Kernel>& out);
    void lowerNode(const ir::Node& node);
    void lowerOperator(const ir::Node& node);
    ConvKernel convKernel(const ir::Node& node, const Tensor& in, BufferId out);
    TokensKernel tokensKernel(const ir::Node& node, const Tensor& in, const Tensor& out);
    std::vector<float> hostWeights(const ir::Node& node) const;
    std::vector<float> hostBias(const ir::Node& node) const;
    StageProgram buildMergeProgram(const ir::BlockDag& dag, const schedule::Group& group);

    const ir::Graph& graph_;
    GpuBackend& backend_;
    int batch_;
    uint64_t seed_;
    std::unordered_map<std::string, Tensor> tensors_;        // node name → output
    std::unordered_map<const ir::Node*, Lowered> lowered_;   // schedule operators
    std::unordered_map<std::string, StageProgram> programs_; // stage key → kernels
    std::vector<Tensor> activations_;
};

} // namespace ios::profiling
