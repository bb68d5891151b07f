// SPDX-License-Identifier: Apache-2.0
// A shared library that tst_profiling_cuda_module's fixture module needs and the dynamic linker
// cannot find (it is built into a folder of its own and never on the library path).
extern "C" __attribute__((visibility("default"))) int ios_absent_fixture_value() {
    return 42;
}
