// Scores by sentence length as curves (nmt-score --by-length --plot): one panel per metric, the
// buckets along x, one line per system (hypothesis file), so that systems compare at a glance.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "nmt/eval/length_buckets.h"
#include "nmt/plot/figure.h"

namespace nmt::plot {

/// BLEU and/or chrF (as `options.metrics` names them) per bucket; the x labels carry the bucket's
/// words and the sentence count. Empty buckets leave gaps. Throws ConfigError when systems'
/// buckets differ (check_same_buckets) or there are none.
std::unique_ptr<Figure> draw_length_curves(const std::vector<SystemBuckets>& systems, LengthOf of,
                                           const ScoringOptions& options);

}  // namespace nmt::plot
