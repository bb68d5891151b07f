// SPDX-License-Identifier: Apache-2.0
// Whether this test binary is an optimised, uninstrumented build. Debug and sanitizer builds
// are 10–50× slower: suites run their big models and large random sweeps only when this holds.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IOS_TEST_SANITIZED 1
#endif
#endif

#if defined(NDEBUG) && !defined(__SANITIZE_ADDRESS__) && !defined(IOS_TEST_SANITIZED)
inline constexpr bool kFullModels = true;
#else
inline constexpr bool kFullModels = false;
#endif

// ASan reserves terabytes of address space for its shadow memory, so `ulimit -v` tests cannot
// run under it.
#if defined(__SANITIZE_ADDRESS__) || defined(IOS_TEST_SANITIZED)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
