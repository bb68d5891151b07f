// Human-readable numbers with units, used by tables, tooltips and axes.
#pragma once

#include "ir/graph.h"

#include <QString>

namespace ios::views {

QString formatFlops(double flops);                 // "5.72 GFLOP"
QString formatBytes(double bytes);                 // "1.5 MiB"
QString formatMs(double ms);                       // "3.412 ms" / "85.0 µs"
QString formatSeconds(double seconds);             // "12.3 ms" / "4.56 s"
QString formatCount(double count);                 // "27,742" or "9.20e22" beyond 1e15
QString formatShape(const ir::TensorShape& shape); // "64×73×73"

} // namespace ios::views
