// Human-readable numbers with units, used by tables, tooltips and axes.
#pragma once

#include "ir/graph.h"

#include <QString>
#include <cstdint>
#include <optional>

namespace ios::views {

QString formatFlops(double flops);                 // "5.72 GFLOP"
QString formatBytes(double bytes);                 // "1.5 MiB"
QString formatMs(double ms);                       // "3.412 ms" / "85.0 µs"
QString formatSeconds(double seconds);             // "12.3 ms" / "4.56 s"
QString formatCount(double count);                 // "27,742" or "9.20e22" beyond 1e15
QString formatShape(const ir::TensorShape& shape); // "64×73×73"

// A byte count as people write it: digits with an optional fraction and unit — B, KiB, MiB,
// GiB (powers of 1024), KB, MB, GB (powers of 1000), k/K, M, G read as the binary ones — with
// or without a space, case-insensitive ("24 MiB", "24mib", "1.5G", "25165824"). Rounded to
// whole bytes; nullopt for anything else or values beyond 2^50.
std::optional<int64_t> parseBytes(const QString& text);
// Exact inverse of parseBytes: GiB or MiB with at most three decimals, or whole KiB, that reads
// back as `bytes` ("24 MiB", "19.25 MiB", "3 KiB"), else plain bytes ("20283648 B").
QString exactBytes(int64_t bytes);

} // namespace ios::views
