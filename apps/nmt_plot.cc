// nmt-plot: pictures of a translation model's work (docs/attention.md): attention heat-maps from
// nmt-translate --attention-output (one model's, or one sentence under several models), and the
// training curves of a run directory.
#include "apps/common/app_main.h"
#include "apps/common/option_table.h"
#include "nmt/plot/attention_comparison.h"
#include "nmt/plot/attention_heatmap.h"
#include "nmt/plot/attention_matrix.h"
#include "nmt/plot/training_curves.h"

int main(int argc, char** argv) {
  CLI::App app{"Draw attention heat-maps and training curves as SVG, PNG or PDF (cairo)."};
  nmt::app::add_common_options(app);
  app.require_subcommand(1);

  nmt::plot::HeatmapJob heatmaps;
  std::string formats = nmt::plot::ImageFormatChoice{heatmaps.formats}.text(), sentences;  // the library's default
  auto* attention = app.add_subcommand("attention", "One heat-map per sentence of nmt-translate --attention-output");
  attention->add_option("input", heatmaps.input, "Attention JSON lines (nmt-translate --attention-output)")->required();
  attention->add_option("--output-dir,-o", heatmaps.output_dir, "Folder for attention-NNNN.svg/.png (made if missing)")
      ->required();
  auto* sentences_option = attention->add_option("--sentences,-s", sentences, "Lines to draw (from 1, as the input), e.g. 1,5,10-12 (default: all)");
  attention->add_flag("--words", heatmaps.merge_words,
                      "Merge subword pieces into words (sum over a word's source pieces, average over its target "
                      "pieces)");
  attention->add_option("--format", formats, "Comma-separated: svg, png, pdf")->capture_default_str();
  nmt::app::add_number_option(*attention, "--cell-size", heatmaps.options.cell_size, "Points per cell")->capture_default_str();
  attention->add_option("--title", heatmaps.options.title, "Title (default: line number and sizes)");
  attention->add_flag("!--no-alignment", heatmaps.options.mark_alignment, "Do not outline the hard alignment");

  nmt::plot::AttentionComparisonJob comparison;
  auto* compare = app.add_subcommand("compare-attention",
                                     "One sentence's heat-maps from several models' --attention-output, side by side");
  compare->add_option("inputs", comparison.inputs, "Attention JSON lines, one file per model (at least 2)")->required();
  compare->add_option("--label", comparison.labels, "A title per file, in order (default: the file names)");
  nmt::app::add_number_option(*compare, "--sentence,-s", comparison.line, "The input line to draw (from 1)")
      ->capture_default_str();
  compare->add_option("--output,-o", comparison.outputs, "Image files (.svg, .png, .pdf)")->required();
  nmt::app::add_number_option(*compare, "--columns", comparison.columns, "Heat-maps per row (0: up to 4)")
      ->capture_default_str();
  compare->add_flag("--words", comparison.merge_words, "Merge subword pieces into words");
  nmt::app::add_number_option(*compare, "--cell-size", comparison.options.cell_size, "Points per cell")
      ->capture_default_str();

  nmt::plot::TrainingCurvesJob curves;
  auto* metrics = app.add_subcommand("metrics", "Training curves of one run directory, or several compared");
  metrics->add_option("run_dirs", curves.run_dirs, "Run directories (each with metrics.jsonl)")->required();
  metrics->add_option("--label", curves.labels, "A name per run, in order (default: the directory names)");
  metrics->add_option("--output,-o", curves.outputs,
                      "Image files (.svg, .png, .pdf); default for one run: RUN_DIR/curves.svg and .png");

  return nmt::app::run(app, argc, argv, [&] {
    if (attention->parsed()) {
      heatmaps.formats = nmt::plot::parse_image_formats(formats, "format");
      // Given, even empty ("-s ''"), it is a selection: an empty one is refused, never "all".
      if (sentences_option->count() > 0) heatmaps.lines = nmt::plot::parse_line_selection(sentences, "sentences");
      nmt::plot::write_attention_heatmaps(heatmaps);
    }
    if (compare->parsed()) nmt::plot::write_attention_comparison(comparison);
    if (metrics->parsed()) nmt::plot::write_training_curves(curves);
  });
}
