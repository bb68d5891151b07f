// SPDX-License-Identifier: Apache-2.0
// A module in the place of the CUDA backend that needs a library which is not there, as the
// real module needs libcudnn.so.9 on a machine without cuDNN: dlopen fails, and the loader
// must name the missing library (tst_profiling_cuda_module).
extern "C" int ios_absent_fixture_value();

extern "C" __attribute__((visibility("default"))) int ios_fixture_uses_absent() {
    return ios_absent_fixture_value();
}
