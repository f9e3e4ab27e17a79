#!/usr/bin/env python3
"""The attention study's numbers and report (scripts/attention_study.sh writes the runs and the
translations; this reads them). Plain Python: the scores come from nmt-score, the pictures from
nmt-score --plot and nmt-plot compare-attention.

  attention_study_report.py best-soft --out DIR --data DIR --build DIR --kinds a,b,...
      prints the soft kind with the best beam-5 test BLEU (nothing when none is translated yet)
  attention_study_report.py report --out DIR --data DIR --build DIR --kinds a,b,... --steps N [--hardened NAME]
      writes DIR/report/{summary.md,table.json,by-length.svg,by-length.png,heatmaps.svg,heatmaps.png}
"""
import argparse
import json
import math
import os
import subprocess
import sys

SOFT_KINDS = ["bahdanau", "dot", "general", "concat", "local-m", "local-p", "local-p-offset", "sparsemax",
              "entmax15"]
DESCRIPTIONS = {
    "none": "no attention: the encoder's final states at every step",
    "bahdanau": "additive score, Bahdanau decoder",
    "dot": "dot score s_t^T h_j without a projection (H = 128 a direction, so that 2H = D), Luong decoder",
    "general": "general score, Luong decoder (the recipe)",
    "concat": "concat score, Luong decoder",
    "local-m": "general, local window at p_t = t",
    "local-p": "general, local window at a predicted p_t",
    "local-p-offset": "general, local window at p_t = t plus a learnt offset of at most W",
    "sparsemax": "general, sparsemax weights",
    "entmax15": "general, 1.5-entmax weights",
    "hard": "general, trained hard (straight-through Gumbel)",
}


def fail(message):
    sys.exit("attention_study_report.py: " + message)


def nmt_score(build, *arguments):
    done = subprocess.run([os.path.join(build, "apps", "nmt-score"), *arguments, "--json"], capture_output=True,
                          text=True)
    if done.returncode != 0:
        fail("nmt-score failed: " + done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "nmt-score failed")
    return json.loads(done.stdout)


def translation(out, name, search):
    return os.path.join(out, "translations", f"{name}.{search}.en")


def corpus_scores(args, name, search):
    path = translation(args.out, name, search)
    if not os.path.isfile(path):
        return None
    scores = nmt_score(args.build, os.path.join(args.data, "test.en"), "-i", path)
    return scores["bleu"]["score"], scores["chrf"]["score"]


def speed(out, name, search):
    try:
        with open(os.path.join(out, "translations", f"{name}.{search}.speed"), encoding="utf-8") as f:
            return float(f.read().strip())
    except (OSError, ValueError):
        return None


def attention_statistics(path):
    """Mean entropy (nats) of the attention rows and the share of weights written as 0: exactly 0
    (a sparse normaliser's, a window's, hard attention's) or below the JSON's six decimals (5e-7)."""
    rows = zeros = cells = 0
    entropy = 0.0
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            for row in record["attention"]:
                rows += 1
                cells += len(row)
                zeros += sum(1 for a in row if a == 0)
                entropy -= sum(a * math.log(a) for a in row if a > 0)
    if rows == 0:
        return None, None
    return entropy / rows, zeros / cells


def training_numbers(out, kind):
    dev_bleu = seconds = None
    try:
        with open(os.path.join(out, "runs", kind, "metrics.jsonl"), encoding="utf-8") as f:
            for line in f:
                event = json.loads(line)
                if event.get("event") == "valid" and "bleu" in event:
                    dev_bleu = event["bleu"]
                if "elapsed_s" in event:
                    seconds = event["elapsed_s"]
    except OSError:
        pass
    return dev_bleu, seconds


def finished(record, most_ratio=1.5):
    """A translation that ended by itself: at most `most_ratio` target pieces per source piece (a
    young model that loops runs on to the search's length limit, and its heat-map towers)."""
    return 0 < len(record["target"]) <= most_ratio * max(len(record["source"]), 1)


def long_verse(data, attention_files, most_words=45):
    """The test line (from 1) with the longest source of at most `most_words` words that every
    attention file translated and finished (a verse that fits a readable heat-map)."""
    with open(os.path.join(data, "test.es"), encoding="utf-8") as f:
        sources = [line.split() for line in f]
    translated = None
    for path in attention_files:
        with open(path, encoding="utf-8") as f:
            lines = {i + 1 for i, line in enumerate(f) if finished(json.loads(line))}
        translated = lines if translated is None else translated & lines
    candidates = [(len(words), -i) for i, words in enumerate(sources, 1)
                  if len(words) <= most_words and i in (translated or set())]
    return -max(candidates)[1] if candidates else None


def best_soft(args):
    best = None
    for kind in args.kinds.split(","):
        if kind not in SOFT_KINDS:
            continue
        scores = corpus_scores(args, kind, "beam5")
        if scores is not None and (best is None or scores[0] > best[1]):
            best = (kind, scores[0])
    print(best[0] if best else "")


def report(args):
    names = [k for k in args.kinds.split(",")]
    if args.hardened:
        names.append(args.hardened)
    table = []
    for name in names:
        kind = name[:-len("-hardened")] if name.endswith("-hardened") else name
        beam = corpus_scores(args, name, "beam5")
        greedy = corpus_scores(args, name, "greedy")
        if beam is None:
            continue
        attention = os.path.join(args.out, "translations", f"{name}.attention.jsonl")
        entropy, zero_share = attention_statistics(attention) if os.path.isfile(attention) else (None, None)
        dev_bleu, seconds = training_numbers(args.out, kind)
        table.append({
            "name": name,
            "description": DESCRIPTIONS.get(kind, "") + (", decoded with --hard-attention" if name != kind else ""),
            "test_bleu_beam5": beam[0], "test_chrf_beam5": beam[1], "test_bleu_greedy": greedy[0] if greedy else None,
            "dev_bleu_greedy": dev_bleu if name == kind else None,
            "greedy_sentences_per_s": speed(args.out, name, "greedy"),
            "beam5_sentences_per_s": speed(args.out, name, "beam5"),
            "attention_entropy_nats": entropy, "attention_zero_share": zero_share,
            "training_s": seconds if name == kind else None,
        })
    if not table:
        fail("no kind has its beam-5 translation yet: run scripts/attention_study.sh")
    report_dir = os.path.join(args.out, "report")
    os.makedirs(report_dir, exist_ok=True)

    # BLEU by source length, a line per kind (nmt-score draws it).
    inputs = []
    for row in table:
        inputs += ["-i", translation(args.out, row["name"], "beam5"), "--label", row["name"]]
    by_length = None
    for picture in ("by-length.svg", "by-length.png"):
        by_length = nmt_score(args.build, os.path.join(args.data, "test.en"), *inputs, "--by-length", "--length-of",
                              "source", "--source", os.path.join(args.data, "test.es"), "--plot",
                              os.path.join(report_dir, picture))
    buckets = {system["label"]: system["buckets"] for system in by_length["systems"]}
    for row in table:
        row["bleu_by_source_length"] = {b["label"]: b["bleu"] for b in buckets[row["name"]]}

    # One long verse under every kind with attention.
    with_attention = [row["name"] for row in table
                      if os.path.isfile(os.path.join(args.out, "translations", f"{row['name']}.attention.jsonl"))]
    files = [os.path.join(args.out, "translations", f"{name}.attention.jsonl") for name in with_attention]
    verse = long_verse(args.data, files) if len(files) >= 2 else None
    if verse is not None:
        command = [os.path.join(args.build, "apps", "nmt-plot"), "compare-attention", *files, "-s", str(verse),
                   "--words", "-o", os.path.join(report_dir, "heatmaps.svg"), "-o",
                   os.path.join(report_dir, "heatmaps.png")]
        for name in with_attention:
            command += ["--label", name]
        if subprocess.run(command).returncode != 0:
            fail("nmt-plot compare-attention failed")

    with open(os.path.join(report_dir, "table.json"), "w", encoding="utf-8") as f:
        json.dump({"steps": args.steps, "test_verse_drawn": verse, "kinds": table}, f, indent=1)
    write_summary(os.path.join(report_dir, "summary.md"), table, args.steps, verse)


def number(value, digits=2, percent=False):
    if value is None:
        return "-"
    return f"{100 * value:.1f} %" if percent else f"{value:.{digits}f}"


def write_summary(path, table, steps, verse):
    length_labels = list(table[0]["bleu_by_source_length"].keys())
    lines = [
        "# The attention study",
        "",
        f"Every kind trained {steps} steps with the reference recipe (configs/bible-es-en.toml, two ranks, the same "
        "data, seed and subword model), tested on the test books (1,244 verses, WEB reference): beam 5 with "
        "length alpha 1.0 and greedy. Speeds are nmt-translate's sentences/s over the test books (one process, "
        "whatever else ran on the machine). Entropy: the mean over target steps of -sum a log a (nats) of beam "
        "5's attention; zeros: the share of weights written as 0 in the attention output (six decimals: exact "
        "zeros, from sparse normalisers, windows and hard attention, and softmax weights below 5e-7).",
        "",
        "| kind | test BLEU | chrF2 | greedy BLEU | dev BLEU | greedy sent/s | beam 5 sent/s | entropy | zeros | "
        "training s |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in table:
        lines.append(
            f"| {row['name']} | {number(row['test_bleu_beam5'])} | {number(row['test_chrf_beam5'])} | "
            f"{number(row['test_bleu_greedy'])} | {number(row['dev_bleu_greedy'])} | "
            f"{number(row['greedy_sentences_per_s'], 0)} | {number(row['beam5_sentences_per_s'], 0)} | "
            f"{number(row['attention_entropy_nats'])} | {number(row['attention_zero_share'], percent=True)} | "
            f"{number(row['training_s'], 0)} |")
    lines += ["", "Test BLEU (beam 5) by source length in words:", "",
              "| kind | " + " | ".join(length_labels) + " |", "| --- |" + " ---: |" * len(length_labels)]
    for row in table:
        lines.append(f"| {row['name']} | " + " | ".join(number(row["bleu_by_source_length"][b]) for b in length_labels)
                     + " |")
    lines += ["", "What each kind is:", ""] + [f"- {row['name']}: {row['description']}" for row in table]
    lines += ["", "![BLEU by source length](by-length.png)", ""]
    if verse is not None:
        lines += [f"Test verse {verse} under every kind with attention (words; white: weight 0):", "",
                  "![attention](heatmaps.png)", ""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["best-soft", "report"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--build", required=True)
    parser.add_argument("--kinds", required=True)
    parser.add_argument("--steps", type=int, default=0)
    parser.add_argument("--hardened")
    args = parser.parse_args()
    if args.command == "best-soft":
        best_soft(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
