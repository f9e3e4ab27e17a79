"""scripts/reference/translate_reference.py on tiny random models, every attention type and decoder style.

Beam search with beam 1 equals greedy search; the batched beam search equals a literal, one sentence
at a time transcription of the spec's steps (docs/search.md), bit for bit when both see the same
rows; raw scores are the teacher-forced log-probabilities; the command restores input order.
The random checkpoints are written from Python (torch.jit.script of a module holding the
parameters under the checkpoint's names), so no C++ is needed. Needs PyTorch (Debian's
python3-torch for /usr/bin/python3); skipped without it. About 10 s.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import torch
except ImportError:  # the python3 first on PATH may lack torch; /usr/bin/python3 has it
    torch = None

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMMAND = os.path.join(ROOT, "scripts", "reference", "translate_reference.py")
sys.path.insert(0, os.path.join(ROOT, "scripts", "reference"))

if torch is not None:
    from nmt_reference import Reference  # noqa: E402
    from translate_reference import (BOS, EOS, NEG_INF, SearchOptions, beam_search, greedy_search,  # noqa: E402
                                     make_batches, translate)

ATTENTIONS = ("bahdanau", "dot", "general", "concat")
STYLES = ("bahdanau", "luong")


def tiny_config(attention, style, lean, target_vocab=41):
    """tests/model/model_test_util.h's tiny_config; lean: shared + tied embeddings, zero bridge, 2 layers."""
    return {"source_vocab_size": target_vocab if lean else 37, "target_vocab_size": target_vocab,
            "embedding_size": 16, "encoder_hidden_size": 12, "encoder_layers": 1 if lean else 2,
            "decoder_hidden_size": 20, "decoder_layers": 2 if lean else 1, "attention_size": 14,
            "attention": attention, "decoder_style": style, "bridge": "zero" if lean else "linear",
            "dropout": 0.0, "share_embeddings": lean, "tie_output_embedding": lean}


def random_params(c, seed, scale=8.0, eos_bias=2.0):
    """Parameters under the checkpoint's names (docs/model.md) from U(-0.5, 0.5), the output layer's
    weight times `scale` (peaked distributions) and EOS's output bias raised by eos_bias: hypotheses
    end both by EOS and at the length limit, as a trained model's do. (Scaling every weight instead
    makes the recurrence chaotic: float rounding that depends on the batch grows to 1e-3.)"""
    g = torch.Generator().manual_seed(seed)
    E, H, D, A = c["embedding_size"], c["encoder_hidden_size"], c["decoder_hidden_size"], c["attention_size"]
    R = E if c["tie_output_embedding"] else D
    shapes = {"source_embedding.weight": [c["source_vocab_size"], E]}
    if not c["share_embeddings"]:
        shapes["target_embedding.weight"] = [c["target_vocab_size"], E]
    for prefix, rnn in (("encoder.rnn.", torch.nn.GRU(E, H, c["encoder_layers"], bidirectional=True)),
                        ("decoder.rnn.", torch.nn.GRU(E + (2 * H if c["decoder_style"] == "bahdanau" else R), D,
                                                      c["decoder_layers"]))):
        shapes.update({prefix + name: list(p.shape) for name, p in rnn.named_parameters()})
    if c["bridge"] == "linear":
        shapes.update({"decoder.bridge.weight": [D, 2 * H], "decoder.bridge.bias": [D]})
    readout_in = D + 2 * H + E if c["decoder_style"] == "bahdanau" else 2 * H + D
    shapes.update({"decoder.readout.weight": [R, readout_in], "decoder.readout.bias": [R]})
    a = "decoder.attention."
    if c["attention"] == "bahdanau":
        shapes.update({a + "query_layer.weight": [A, D], a + "key_layer.weight": [A, 2 * H],
                       a + "energy_layer.weight": [1, A]})
    elif c["attention"] == "concat":
        shapes.update({a + "concat_layer.weight": [A, D + 2 * H], a + "energy_layer.weight": [1, A]})
    elif c["attention"] == "general" or D != 2 * H:
        shapes[a + "key_layer.weight"] = [D, 2 * H]
    if not c["tie_output_embedding"]:
        shapes["output.weight"] = [c["target_vocab_size"], R]
    shapes["output.bias"] = [c["target_vocab_size"]]
    params = {name: torch.rand(shape, generator=g) - 0.5 for name, shape in shapes.items()}
    params["output.weight" if "output.weight" in params else "target_embedding.weight"
           if "target_embedding.weight" in params else "source_embedding.weight"] *= scale
    params["output.bias"][EOS] += eos_bias
    return params


def write_checkpoint(path, config, params):
    """The layout nmt::save_checkpoint writes, as far as load_checkpoint reads it."""
    root, model = torch.nn.Module(), torch.nn.Module()
    root.add_module("model", model)
    for name, tensor in params.items():
        *path_parts, leaf = name.split(".")
        module = model
        for part in path_parts:
            if not hasattr(module, part):
                module.add_module(part, torch.nn.Module())
            module = getattr(module, part)
        module.register_parameter(leaf, torch.nn.Parameter(tensor.clone()))
    root.format_version = 1
    root.model_config = json.dumps(config)
    root.register_buffer("source_spm", torch.zeros(1, dtype=torch.uint8))
    root.register_buffer("target_spm", torch.zeros(1, dtype=torch.uint8))
    torch.jit.script(root).save(path)


def random_sentences(vocab, lengths, seed):
    g = torch.Generator().manual_seed(seed)
    return [torch.randint(4, vocab, (n,), generator=g).tolist() for n in lengths]


def literal_beam_search(model, ids, o):
    """The spec's steps for one sentence, written as plainly as possible (a check of the batched code)."""
    k, n, V = o.beam_size, o.n_best, model.out_b.shape[0]
    m, L = len(ids) + 1, o.max_length(len(ids))
    state = model.encode(torch.tensor([ids + [EOS]]), torch.tensor([m]))
    live = [([], 0.0, torch.zeros(m))]  # (tokens, r, coverage)
    finished, unfinished = [], []

    def final(tokens, r, coverage, done):
        y = len(tokens) + (1 if done else 0)
        cp = 0.0
        if o.coverage_beta:
            cp = o.coverage_beta * sum(math.log(min(max(c, 1e-10), 1.0)) for c in coverage.tolist())
        return (r / o.lp(y) + cp, tokens, r, done)

    previous = torch.tensor([BOS])
    while True:
        log_probs, attention, state = model.step(state, previous)
        for i, (tokens, _, _) in enumerate(live):
            if len(tokens) < o.min_length:
                log_probs[i, EOS] = NEG_INF
            N = o.no_repeat_ngram
            if N > 0 and len(tokens) >= N - 1:
                for j in range(len(tokens) - N + 1):
                    if tokens[j:j + N - 1] == tokens[len(tokens) - N + 1:]:
                        log_probs[i, tokens[j + N - 1]] = NEG_INF
        r = torch.tensor([h[1] for h in live])  # float32, as the batched code keeps r
        candidates = (r.unsqueeze(1) + log_probs).view(1, -1)
        values, flat = candidates.topk(min(2 * k, len(live) * V), dim=1, sorted=True)
        new = []
        for q, (value, j) in enumerate(zip(values[0].tolist(), flat[0].tolist())):
            if value == NEG_INF:
                continue
            parent, token = j // V, j % V
            tokens, _, coverage = live[parent]
            coverage = coverage + attention[parent, :m]
            if token == EOS:
                if q < k:
                    finished.append(final(tokens, value, coverage, True))
                continue
            new.append((tokens + [token], value, coverage, parent))
            if len(new) == k:
                break
        if not new:
            break
        if len(new[0][0]) == L:
            unfinished = [final(t, v, c, False) for t, v, c, _ in new]
            break
        if len(finished) >= n:
            nth = sorted((f[0] for f in finished), reverse=True)[n - 1]
            bound = max(v / o.lp(L) if v < 0 else v for _, v, _, _ in new)
            if nth >= bound:
                break
        state = state.select(torch.tensor([p for _, _, _, p in new]))
        previous = torch.tensor([t[-1] for t, _, _, _ in new])
        live = [(t, v, c) for t, v, c, _ in new]
    ranked = sorted(finished, key=lambda h: -h[0])
    if len(ranked) < n:
        ranked += sorted(unfinished, key=lambda h: -h[0])
    return [(h[1], h[0], h[2], h[3]) for h in ranked[:n]]


def as_tuples(hyps):
    return [(h.tokens, h.score, h.log_prob, h.finished) for h in hyps]


def search_all(model, sentences, options, greedy=False, batch_size=64):
    with torch.inference_mode():
        return translate(model, sentences, options, greedy, batch_size=batch_size)


@unittest.skipIf(torch is None, "PyTorch is not installed for this interpreter (use /usr/bin/python3)")
class TranslateReferenceTest(unittest.TestCase):
    LENGTHS = [7, 3, 5, 1, 6, 9, 2]

    def model(self, attention, style, lean, seed, target_vocab=41, **kwargs):
        config = tiny_config(attention, style, lean, target_vocab)
        return Reference(config, random_params(config, seed, **kwargs))

    def test_beam_one_equals_greedy(self):
        ends = set()
        for i, (attention, style) in enumerate((a, s) for a in ATTENTIONS for s in STYLES):
            with self.subTest(attention=attention, style=style):
                model = self.model(attention, style, lean=i % 2 == 1, seed=i)
                sentences = random_sentences(model.c["source_vocab_size"], self.LENGTHS, seed=100 + i)
                greedy = search_all(model, sentences, SearchOptions(beam_size=1, length_penalty="none"), greedy=True)
                beam = search_all(model, sentences, SearchOptions(beam_size=1, length_penalty="none"))
                self.assertEqual([as_tuples(h) for h in greedy], [as_tuples(h) for h in beam])
                ends.update(h[0].finished for h in greedy)
        self.assertEqual(ends, {True, False}, "the check should see sentences end by EOS and by the length limit")

    def test_batched_beam_search_follows_the_spec(self):
        cases = [  # (attention, style, lean, target vocab, options, random_params arguments)
            ("bahdanau", "bahdanau", False, 41, SearchOptions(beam_size=5, length_penalty="none"), {}),
            ("dot", "luong", True, 41, SearchOptions(beam_size=4, n_best=2, length_penalty="gnmt", alpha=0.7,
                                                     coverage_beta=0.3, min_length=2), {}),
            ("concat", "bahdanau", True, 41, SearchOptions(beam_size=3, length_penalty="average", no_repeat_ngram=2,
                                                           max_length_a=1.0, max_length_b=3), {}),
            # 5 words, EOS unlikely, no bigram twice: candidates run out, and the beams of different
            # sentences shrink at different steps (several topk groups in one step).
            ("general", "luong", False, 5, SearchOptions(beam_size=4, n_best=2, length_penalty="none",
                                                         no_repeat_ngram=2, max_length_b=20),
             dict(scale=2.0, eos_bias=-5.0)),
        ]
        ends = set()
        for seed, (attention, style, lean, vocab, options, kwargs) in enumerate(cases):
            with self.subTest(attention=attention, style=style):
                model = self.model(attention, style, lean, seed=50 + seed, target_vocab=vocab, **kwargs)
                sentences = random_sentences(model.c["source_vocab_size"], self.LENGTHS, seed=200 + seed)
                with torch.inference_mode():
                    literal = [literal_beam_search(model, s, options) for s in sentences]
                one_by_one = search_all(model, sentences, options, batch_size=1)
                # The same rows: the same tokens and ends, scores to the last bits (PyTorch's products
                # may sum a beam's rows in another order than one row's: 1 ulp with PyTorch 2.11 on an
                # AVX-512 Xeon, none with 1.13 and 2.6 here).
                self.assertEqual(len(one_by_one), len(literal))
                for got, want in zip(one_by_one, literal):
                    got = as_tuples(got)
                    self.assertEqual([(h[0], h[3]) for h in got], [(w[0], w[3]) for w in want])
                    for h, w in zip(got, want):  # score and log-probability
                        for value, wanted in zip(h[1:3], w[1:3]):
                            self.assertAlmostEqual(value, wanted, delta=1e-5 * max(1.0, abs(wanted)))
                batched = search_all(model, sentences, options)
                for got, want in zip(batched, literal):
                    self.assertEqual([h.tokens for h in got], [h[0] for h in want])
                    for h, w in zip(got, want):
                        self.assertAlmostEqual(h.score, w[1], delta=1e-4)
                ends.update(h.finished for hyps in batched for h in hyps)
        self.assertEqual(ends, {True, False}, "the check should see hypotheses end by EOS and by the length limit")

    def test_raw_scores_are_teacher_forced_log_probs(self):
        model = self.model("bahdanau", "bahdanau", False, seed=7)
        sentences = random_sentences(37, self.LENGTHS, seed=8)
        for hyps, ids in zip(search_all(model, sentences, SearchOptions(beam_size=4, n_best=4)), sentences):
            for h in hyps:
                target = h.tokens + ([EOS] if h.finished else [])
                log_probs, _ = model.forward(torch.tensor([ids + [EOS]]), torch.tensor([len(ids) + 1]),
                                             torch.tensor([[BOS] + target[:-1]]))
                total = log_probs[0].gather(1, torch.tensor(target).unsqueeze(1)).sum().item()
                self.assertAlmostEqual(total, h.log_prob, delta=1e-4)

    def test_batches_by_length_and_max_tokens(self):
        sentences = [[5] * n for n in (3, 0, 5, 3, 1)]
        batches = [(rows, source.tolist(), lengths.tolist()) for rows, source, lengths in make_batches(sentences, 2, 0)]
        self.assertEqual([rows for rows, _, _ in batches], [[2, 0], [3, 4]])  # longest first, ties in input order
        self.assertEqual(batches[1][1], [[5, 5, 5, EOS], [5, EOS, 0, 0]])
        self.assertEqual(batches[1][2], [4, 2])
        # as nmt::translate_greedy: rows x longest (EOS included) <= max tokens
        self.assertEqual([rows for rows, _, _ in make_batches(sentences, 1, 12)], [[2, 0], [3, 4]])
        self.assertEqual([rows for rows, _, _ in make_batches(sentences, 1, 8)], [[2], [0, 3], [4]])

    def test_command_restores_input_order(self):
        config = tiny_config("general", "luong", False)
        with tempfile.TemporaryDirectory() as tmp:
            write_checkpoint(os.path.join(tmp, "model.pt"), config, random_params(config, 3))
            sentences = random_sentences(37, [4, 9, 1, 6], seed=4)
            sentences.insert(2, [])
            with open(os.path.join(tmp, "ids.txt"), "w") as f:
                f.write("".join(" ".join(map(str, s)) + "\n" for s in sentences))
            run = subprocess.run([sys.executable, COMMAND, os.path.join(tmp, "model.pt"), os.path.join(tmp, "ids.txt"),
                                  "--beam-size", "3", "--batch-size", "2", "--scores", "--timing"],
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn("sentences/s", run.stderr)
            model = Reference(config, random_params(config, 3))
            expected = search_all(model, sentences, SearchOptions(beam_size=3))
            lines = run.stdout.splitlines()
            self.assertEqual(len(lines), len(sentences))
            for line, hyps in zip(lines, expected):
                tokens, score, log_prob = line.split("\t")
                self.assertEqual(tokens, " ".join(map(str, hyps[0].tokens)))
                self.assertAlmostEqual(float(score), hyps[0].score, delta=1e-4)
            self.assertEqual(lines[2], "\t0.0\t0.0")  # an empty line translates to nothing

            with open(os.path.join(tmp, "bad.txt"), "w") as f:
                f.write("5 6\n5 99\n")
            run = subprocess.run([sys.executable, COMMAND, os.path.join(tmp, "model.pt"), os.path.join(tmp, "bad.txt")],
                                 capture_output=True, text=True, timeout=120)
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("bad.txt:2: id 99 outside the source vocabulary [0, 37)", run.stderr)


if __name__ == "__main__":
    unittest.main()
