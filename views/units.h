// SPDX-License-Identifier: Apache-2.0
// Human-readable numbers with units, used by tables, tooltips and axes.
#pragma once

#include "ir/graph.h"
#include "util/big_uint.h"

#include <QString>

class QFontMetrics;
#include <cstdint>
#include <optional>

namespace ios::views {

QString formatFlops(double flops);                 // "5.72 GFLOP"
QString formatBytes(double bytes);                 // "1.5 MiB"
QString formatMs(double ms);                       // "3.412 ms" / "85.0 µs"
QString formatSeconds(double seconds);             // "12.3 ms" / "4.56 s"
QString formatCount(double count);                 // "27,742" or "9.20e22" beyond 1e15
QString formatShape(const ir::TensorShape& shape); // "64×73×73"
// An exact count of any size, never "inf": digits up to 1e15, then "9.20×10^22" from the
// decimal digits (schedule counts exceed a double's range on large models).
QString formatBigCount(const BigUint& count);

// Fits `name` into `width` pixels keeping its tail, as names are read from the right
// ("…/layer1/0/conv1/Conv", not "/layer1…v1/Conv"): drops whole leading '/'-separated
// segments first, then characters.
QString elideLeft(const QString& name, const QFontMetrics& metrics, int width);

// A byte count as people write it: digits with an optional fraction and unit — B, KiB, MiB,
// GiB (powers of 1024), KB, MB, GB (powers of 1000), k/K, M, G read as the binary ones — with
// or without a space, case-insensitive ("24 MiB", "24mib", "1.5G", "25165824"). Rounded to
// whole bytes; nullopt for anything else or values beyond 2^50.
std::optional<int64_t> parseBytes(const QString& text);
// Exact inverse of parseBytes: GiB or MiB with at most three decimals, or whole KiB, that reads
// back as `bytes` ("24 MiB", "19.25 MiB", "3 KiB"), else plain bytes ("20283648 B").
QString exactBytes(int64_t bytes);

} // namespace ios::views
