#include "nmt/plot/length_plot.h"

#include <cmath>
#include <limits>

#include "nmt/core/error.h"
#include "nmt/plot/draw.h"
#include "nmt/plot/line_chart.h"

namespace nmt::plot {

std::unique_ptr<Figure> draw_length_curves(const std::vector<SystemBuckets>& systems, LengthOf of,
                                           const ScoringOptions& options) {
  if (systems.empty()) throw ConfigError("plot: no system to draw");
  check_same_buckets(systems);
  const std::vector<LengthBucket>& first = systems.front().buckets;
  Axis x;
  x.label = name_of(of) + " length in words (sentences)";
  for (const LengthBucket& bucket : first) {
    x.categories.push_back(bucket.label() + "\n(" + std::to_string(bucket.sentences) + ")");
  }
  std::vector<Panel> panels;
  for (const std::string& metric : options.metrics) {
    Panel panel;
    panel.title = metric == "bleu" ? "BLEU by sentence length" : "chrF by sentence length";
    panel.x = x;
    panel.y.label = metric == "bleu" ? "BLEU" : "chrF";
    panel.y.include_zero = true;
    for (std::size_t k = 0; k < systems.size(); ++k) {
      const SystemBuckets& system = systems[k];
      Series s;
      s.label = system.label;
      // Past the palette's colours, the second round of them is dashed: up to 14 systems stay apart.
      s.dashed = k >= kSeriesColours;
      for (std::size_t i = 0; i < system.buckets.size(); ++i) {
        const CorpusScores& scores = system.buckets[i].scores;
        double y = std::numeric_limits<double>::quiet_NaN();
        if (system.buckets[i].sentences > 0) {
          if (metric == "bleu" && scores.bleu) y = scores.bleu->score;
          if (metric == "chrf" && scores.chrf) y = scores.chrf->score;
        }
        s.x.push_back(static_cast<double>(i));
        s.y.push_back(y);
      }
      panel.series.push_back(std::move(s));
    }
    panels.push_back(std::move(panel));
  }
  ChartLayout layout;
  layout.columns = panels.size();
  layout.panel_width = 330;
  layout.panel_height = 250;
  return draw_panels(panels, layout);
}

}  // namespace nmt::plot
