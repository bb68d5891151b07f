// SPDX-License-Identifier: Apache-2.0
#include "schedule/merged_weights.h"

#include "schedule/merge.h"
#include "util/error.h"

#include <tuple>

namespace ios::schedule {

MergedConvLayout mergedConvLayout(const std::vector<const ir::Node*>& members, int64_t inChannels) {
    MergedConvLayout layout;
    layout.merged = mergedConv(members); // checks mergeable, ≥ 2 members
    layout.inChannels = inChannels;
    const ir::ConvAttrs& big = layout.merged.conv;
    int64_t offset = 0;
    for (const ir::Node* member : members) {
        const ir::ConvAttrs& m = member->conv;
        // The member reads input row y·s − p + ky; in the merged kernel that row is
        // y·s − P + (dy + ky): centred (dy = (K − k) / 2) it must also be dy = P − p.
        for (const auto& [K, P, k, p, axis] :
             {std::tuple{big.kernel.h, big.padding.h, m.kernel.h, m.padding.h, "H"},
              std::tuple{big.kernel.w, big.padding.w, m.kernel.w, m.padding.w, "W"}})
            if ((K - k) % 2 != 0 || (K - k) / 2 != P - p)
                throw UserError(std::string("the kernel cannot be centred in the merged "
                                            "convolution's kernel along ") +
                                    axis + " (kernel − 2·padding differs between the members)",
                                {}, member->name);
        layout.members.push_back({member->name, offset, m.outChannels, m.kernel,
                                  (big.kernel.h - m.kernel.h) / 2,
                                  (big.kernel.w - m.kernel.w) / 2});
        offset += m.outChannels;
    }
    return layout;
}

} // namespace ios::schedule
