#!/usr/bin/env python3
"""Load generator for nmt-serve (scripts/bench_serve.sh runs it). Python 3 standard library only.

Usage: bench_serve_client.py wait URL [--timeout S] [--pid PID]
       bench_serve_client.py split URL SOURCE OUT
       bench_serve_client.py metrics URL
       bench_serve_client.py load URL SENTENCES (--clients N --duration S | --sample M)
                                  [--timeout S] [--raw FILE] [--sent FILE] [--summary FILE]

  wait     GET URL/health until it answers 200 (exit 1 after --timeout seconds, default 300, or
           as soon as process --pid has ended).
  split    The sentences nmt-serve makes of SOURCE's non-empty lines, one a line, written to OUT:
           POST /v1/translate with 32 lines a request, greedy and at most one target subword
           (max_length_a 0, max_length_b 0), keeping each answer's sentences[].source. Requests
           of one sentence each then ask exactly what the server translates as one sentence.
  metrics  GET URL/metrics and print, one "name value" a line: batch_count, batch_seconds (sum),
           batch_sentences (sum), batches_of_1 (bucket le="1" of nmt_serve_batch_sentences),
           search_workers, queue_sentences.
  load     POST URL/v1/translate {"text": SENTENCE}, one sentence a request, over one keep-alive
           connection (http.client) per client thread.
             --clients N --duration S: N threads, each cycling through SENTENCES from its own
               offset (client i starts at line i*L/N of the L lines), sending requests back to
               back until S seconds have passed since the start; requests in flight then finish.
             --sample M: one client, M requests in turn: the lines i*L/M for i = 0..M-1, once.
           Every request is recorded: status and latency (from just before the request is sent to
           the end of the body). A status of 200 whose body is not the expected JSON counts as
           "other". A request with no answer within --timeout seconds (default 120), or whose
           connection failed, is "lost" (the connection is then opened anew).
           --raw FILE: one row per request (TSV: client, start_s, latency_s, status, sentences,
             error). --sent FILE: the sentences answered 200, one a line, in client order.
           --summary FILE (default stdout): "name value" lines: requests, ok, s503, other, lost,
             elapsed_s, requests_per_s, ok_per_s, sentences, sentences_per_s, multi_sentence,
             p50_ms, p95_ms, p99_ms, mean_ms, max_ms (latencies of the 200 answers only),
             client_cpu_s (requests_per_s counts the answers 200 and 503); then "error COUNT
             MESSAGE" lines for the requests lost or answered neither 200 nor 503.
"""
import argparse
import collections
import http.client
import json
import math
import os
import signal
import sys
import threading
import time
import urllib.parse


def parse_url(url):
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        sys.exit("bench_serve_client.py: want an http://HOST:PORT/ URL, got " + url)
    return parts.hostname, parts.port or 80


def connect(url, timeout):
    host, port = parse_url(url)
    return http.client.HTTPConnection(host, port, timeout=timeout)


def get(url, path, timeout=30):
    conn = connect(url, timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def post_json(conn, body):
    data = json.dumps(body, ensure_ascii=False).encode("utf-8")
    conn.request("POST", "/v1/translate", data, {"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read()


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f]
    lines = [line for line in lines if line.strip()]
    if not lines:
        sys.exit("bench_serve_client.py: no non-empty lines in " + path)
    return lines


def cmd_wait(args):
    deadline = time.monotonic() + args.timeout
    last = "no answer"
    while time.monotonic() < deadline:
        if args.pid and not os.path.exists("/proc/%d" % args.pid):
            sys.exit("bench_serve_client.py: the server (pid %d) ended before /health answered" % args.pid)
        try:
            status, _ = get(args.url, "/health", timeout=5)
            if status == 200:
                return
            last = "status %d" % status
        except OSError as e:
            last = str(e)
        time.sleep(0.2)
    sys.exit("bench_serve_client.py: GET /health did not answer 200 within %g s (%s)" % (args.timeout, last))


def cmd_split(args):
    lines = read_lines(args.source)
    conn = connect(args.url, 300)
    out = []
    for start in range(0, len(lines), 32):
        chunk = lines[start:start + 32]
        status, body = post_json(conn, {"text": chunk, "beam": 1, "max_length_a": 0, "max_length_b": 0})
        if status != 200:
            sys.exit("bench_serve_client.py: split: status %d: %s" % (status, body[:300].decode("utf-8", "replace")))
        for translation in json.loads(body)["translations"]:
            out.extend(s["source"] for s in translation["sentences"])
    conn.close()
    with open(args.out, "w", encoding="utf-8") as f:
        f.writelines(s + "\n" for s in out)
    print("%d lines -> %d sentences" % (len(lines), len(out)))


def metric_values(text):
    values = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        values[name] = float(value)
    return values


def cmd_metrics(args):
    status, body = get(args.url, "/metrics")
    if status != 200:
        sys.exit("bench_serve_client.py: GET /metrics: status %d" % status)
    v = metric_values(body.decode("utf-8"))
    wanted = [("batch_count", "nmt_serve_batch_duration_seconds_count"),
              ("batch_seconds", "nmt_serve_batch_duration_seconds_sum"),
              ("batch_sentences", "nmt_serve_batch_sentences_sum"),
              ("batches_of_1", 'nmt_serve_batch_sentences_bucket{le="1"}'),
              ("search_workers", "nmt_serve_search_workers"),
              ("queue_sentences", "nmt_serve_queue_sentences")]
    for key, name in wanted:
        print(key, repr(v.get(name, float("nan"))))


class Client(threading.Thread):
    """One keep-alive connection sending `requests()` in turn until `clock.stop_at` (None: all)."""

    def __init__(self, index, url, requests, clock, timeout, barrier):
        super().__init__(daemon=True)
        self.index, self.url, self.requests = index, url, requests
        self.clock, self.timeout, self.barrier = clock, timeout, barrier
        self.rows = []  # (start, latency_s, status, sentences, error, text); status 0: lost, -1: bad body

    def run(self):
        conn = connect(self.url, self.timeout)
        self.barrier.wait()
        for text in self.requests():
            start = time.monotonic()
            if self.clock.stop_at is not None and start >= self.clock.stop_at:
                break
            status, sentences, error = 0, 0, ""
            try:
                status, body = post_json(conn, {"text": text})
                if status == 200:
                    try:
                        sentences = len(json.loads(body)["translations"][0]["sentences"])
                    except (ValueError, KeyError, IndexError, TypeError) as e:
                        status, error = -1, "200 with an unexpected body: %s" % e
            except (OSError, http.client.HTTPException) as e:  # socket.timeout is an OSError
                status, error = 0, "%s: %s" % (type(e).__name__, e)
                conn.close()
                conn = connect(self.url, self.timeout)
            self.rows.append((start, time.monotonic() - start, status, sentences, error, text))
        conn.close()


class Clock:
    """The start, set as the clients are released together, and when they stop sending."""

    def __init__(self, duration):
        self.duration, self.t0, self.stop_at = duration, 0.0, None

    def start(self):
        self.t0 = time.monotonic()
        self.stop_at = None if self.duration is None else self.t0 + self.duration


def percentile(sorted_values, q):
    """Nearest-rank percentile (q in 0..100) of a sorted list; nan when empty."""
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def cmd_load(args):
    lines = read_lines(args.sentences)
    if (args.sample is None) == (args.clients is None):
        sys.exit("bench_serve_client.py: load: give --clients N --duration S, or --sample M")
    if args.sample is not None:
        count = args.sample
        plan = [[lines[i * len(lines) // count] for i in range(count)]]
        stop_at_offset = None
    else:
        if args.duration is None:
            sys.exit("bench_serve_client.py: load: --clients needs --duration")
        plan = [None] * args.clients
        stop_at_offset = args.duration

    def cycling(offset):
        def generate():
            i = offset
            while True:
                yield lines[i % len(lines)]
                i += 1
        return generate

    clock = Clock(stop_at_offset)
    barrier = threading.Barrier(len(plan), action=clock.start)
    clients = []
    for n, fixed in enumerate(plan):
        requests = (lambda fixed=fixed: iter(fixed)) if fixed is not None else cycling(n * len(lines) // len(plan))
        clients.append(Client(n, args.url, requests, clock, args.timeout, barrier))
    cpu0 = time.process_time()
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    t0 = clock.t0
    elapsed = time.monotonic() - t0
    cpu = time.process_time() - cpu0

    rows = [(c.index,) + row for c in clients for row in c.rows]
    ok = [r for r in rows if r[3] == 200]
    s503 = sum(1 for r in rows if r[3] == 503)
    lost = [r for r in rows if r[3] == 0]
    other = len(rows) - len(ok) - s503 - len(lost)
    latencies = sorted(r[2] for r in ok)
    sentences = sum(r[4] for r in ok)
    if args.raw:
        with open(args.raw, "w", encoding="utf-8") as f:
            f.write("client\tstart_s\tlatency_s\tstatus\tsentences\terror\n")
            for r in rows:
                f.write("%d\t%.6f\t%.6f\t%d\t%d\t%s\n" % (r[0], r[1] - t0, r[2], r[3], r[4], r[5].replace("\t", " ")))
    if args.sent:
        with open(args.sent, "w", encoding="utf-8") as f:
            f.writelines(r[6] + "\n" for r in ok)
    summary = [("requests", len(rows)), ("ok", len(ok)), ("s503", s503), ("other", other), ("lost", len(lost)),
               ("elapsed_s", elapsed), ("requests_per_s", (len(ok) + s503) / elapsed),
               ("ok_per_s", len(ok) / elapsed), ("sentences", sentences),
               ("sentences_per_s", sentences / elapsed),
               ("multi_sentence", sum(1 for r in ok if r[4] != 1)),
               ("p50_ms", percentile(latencies, 50) * 1000), ("p95_ms", percentile(latencies, 95) * 1000),
               ("p99_ms", percentile(latencies, 99) * 1000),
               ("mean_ms", sum(latencies) / len(latencies) * 1000 if latencies else float("nan")),
               ("max_ms", latencies[-1] * 1000 if latencies else float("nan")), ("client_cpu_s", cpu)]
    text = "".join("%s %s\n" % (k, ("%.6f" % v) if isinstance(v, float) else v) for k, v in summary)
    errors = collections.Counter(r[5] or "status %d" % r[3] for r in rows if r[3] not in (200, 503))
    text += "".join("error %d %s\n" % (n, message) for message, n in errors.most_common())
    if args.summary:
        with open(args.summary, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


def main():
    # Ctrl-C ends the process at once (KeyboardInterrupt would wait for the client threads' requests).
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("wait")
    p.add_argument("url")
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--pid", type=int, default=0)
    p = sub.add_parser("split")
    p.add_argument("url")
    p.add_argument("source")
    p.add_argument("out")
    p = sub.add_parser("metrics")
    p.add_argument("url")
    p = sub.add_parser("load")
    p.add_argument("url")
    p.add_argument("sentences")
    p.add_argument("--clients", type=int)
    p.add_argument("--duration", type=float)
    p.add_argument("--sample", type=int)
    p.add_argument("--timeout", type=float, default=120)
    p.add_argument("--raw")
    p.add_argument("--sent")
    p.add_argument("--summary")
    args = parser.parse_args()
    for name in ("clients", "sample"):
        if getattr(args, name, None) is not None and getattr(args, name) < 1:
            sys.exit("bench_serve_client.py: --%s must be >= 1" % name)
    {"wait": cmd_wait, "split": cmd_split, "metrics": cmd_metrics, "load": cmd_load}[args.command](args)


if __name__ == "__main__":
    main()
