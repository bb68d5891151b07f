// SPDX-License-Identifier: Apache-2.0
#include "gpu_backend.h"

namespace ios::profiling {

namespace {
template <class... F> struct Overload : F... { using F::operator()...; };
template <class... F> Overload(F...) -> Overload<F...>;
} // namespace

std::string kernelKindName(const Kernel& kernel) {
    return std::visit(
        Overload{[](const CopyKernel&) { return std::string("copy"); },
                 [](const AccumulateKernel& k) {
                     return std::string(k.op == ir::ElementOp::Mul ? "mul" : "add");
                 },
                 [](const ConvKernel&) { return std::string("conv"); },
                 [](const PoolKernel&) { return std::string("pool"); },
                 [](const ActivationKernel&) { return std::string("activation"); },
                 [](const NormKernel& k) { return std::string(ir::toString(k.type)); },
                 [](const MatmulKernel&) { return std::string("matmul"); },
                 [](const TokensKernel&) { return std::string("tokens"); }},
        kernel);
}

double kernelFlops(const Kernel& kernel) {
    return std::visit(
        Overload{
            [](const CopyKernel&) { return 0.0; },
            [](const AccumulateKernel& k) {
                return static_cast<double>(k.dst.dims.n * k.channels * k.dst.dims.h * k.dst.dims.w);
            },
            [](const ConvKernel& k) {
                return 2.0 * static_cast<double>(k.outDims.elements()) *
                       static_cast<double>(k.inDims.c / k.groups * k.kernel.h * k.kernel.w);
            },
            [](const PoolKernel& k) {
                return static_cast<double>(k.outDims.elements() * k.kernel.h * k.kernel.w);
            },
            [](const ActivationKernel& k) { return static_cast<double>(k.dims.elements()); },
            // Per element, as the kernel model counts them (cost/kernel_model.cpp).
            [](const NormKernel& k) {
                const double perElement = k.type == ir::NormType::LayerNorm ? 7 : 5;
                return perElement * static_cast<double>(k.dims.elements());
            },
            // outputs × depth × 2: the depth is d (A·Bᵀ) or B's positions (A·V).
            [](const MatmulKernel& k) {
                const int64_t depth = k.transposeB
                                          ? k.bDims.c / std::max<int64_t>(1, k.heads)
                                          : k.bDims.h * k.bDims.w / std::max<int64_t>(1, k.windows);
                return 2.0 * static_cast<double>(k.outDims.elements()) * static_cast<double>(depth);
            },
            // A copy; the table's additions count.
            [](const TokensKernel& k) {
                return k.table < 0 ? 0.0 : static_cast<double>(k.outDims.elements());
            }},
        kernel);
}

} // namespace ios::profiling
