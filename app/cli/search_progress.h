// Progress of a long search on stderr, only when stderr is a terminal (CLI commands).
#pragma once

#include "schedulers/ios_dp.h"

#include <string>

namespace ios::cli {

// Installs a progress callback on `control` printing "label: 42% (done/total states)" with
// carriage returns when stderr is a terminal; finish() clears the line.
class SearchProgress {
public:
    SearchProgress(schedulers::SearchControl& control, std::string label);
    ~SearchProgress();
    SearchProgress(const SearchProgress&) = delete;
    SearchProgress& operator=(const SearchProgress&) = delete;

private:
    bool active_ = false;
};

} // namespace ios::cli
