#!/usr/bin/python3
"""Browser test of nmt-serve's web page, through headless Chromium and the W3C WebDriver protocol.

usage: browser_test.py --url http://127.0.0.1:PORT/ --screenshot OUT.png
                       [--chromium /usr/bin/chromium] [--chromedriver /usr/bin/chromedriver]
                       [--timeout 60] [--window-size 1200,900] [--from-top] [--tag TAG]

Python 3 standard library only. It starts chromedriver on a free loopback port, opens the page in
headless Chromium, translates two Spanish sentences with beam 3 and checks the result: two sentence
blocks, attention heat-maps whose rows sum to 1, a hover highlight, only same-origin requests, and a
screenshot that is not blank. The server must already be running at --url. With --tag, the model is
a tagged one: the page must offer its tags in #tag (#tag-field shown, the model's default chosen);
the test chooses TAG, checks that the source's language follows the tag's direction and that the
request carries the tag. Without it, #tag-field must stay hidden.

The page's contract (nmt/serve/page/index.html): #source, #beam, #translate (a <button>), #status
(class "error" on errors), #result (data-state idle/busy/done/error), #translation; one .sentence per
sentence, each with a table.heatmap whose td.cell carry data-row, data-col and data-weight, source
headers thead th.src and target labels th.tgt (focusable); hovering a cell or focusing a label puts
class "hl" on the source headers it attends to; <html data-model="ready"> once GET /v1/model is in.
--window-size below 500 px wide emulates a phone's screen (Chromium's windows are at least 500 wide).

Exit status: 0 passed, 1 failed (one line on stderr says why), 77 skipped (no chromium or
chromedriver), 2 bad usage.
"""
import argparse
import base64
import collections
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zlib

SKIP = 77
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
SOURCE_TEXT = ("En el principio cre\u00f3 Dios los cielos y la tierra. "
               "Y la tierra estaba desordenada y vac\u00eda.")
SOURCE_TEXT_EN = ("In the beginning God created the heavens and the earth. "
                  "The earth was formless and empty.")  # for --tag: the tagged test model's <2es> reads English
BEAM = "3"


class Failure(Exception):
    """A check failed; the message is the one-line reason."""


class Deadline(Exception):
    """The whole run went past its time limit, or a signal stopped it."""


def log(msg):
    print("browser_test: " + msg, flush=True)


# ---------------------------------------------------------------- WebDriver over HTTP

class WebDriver:
    def __init__(self, base, deadline):
        self.base = base.rstrip("/")
        self.deadline = deadline
        self.session = None

    def _timeout(self, cap=30.0):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Failure("time limit reached while talking to chromedriver")
        return max(1.0, min(cap, left))

    def request(self, method, path, body=None, timeout=None):
        if body is None and method == "POST":
            body = {}
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json; charset=utf-8")
        try:
            with urllib.request.urlopen(req, timeout=timeout or self._timeout()) as r:
                payload = r.read()
        except urllib.error.HTTPError as e:
            payload = e.read()
            try:
                v = json.loads(payload.decode("utf-8")).get("value", {})
                msg = "%s: %s" % (v.get("error", e.code), str(v.get("message", "")).splitlines()[0][:300])
            except (ValueError, AttributeError, IndexError):
                msg = "HTTP %d" % e.code
            raise Failure("WebDriver %s %s failed: %s" % (method, path, msg))
        except (urllib.error.URLError, socket.timeout, OSError) as e:
            raise Failure("WebDriver %s %s failed: %s" % (method, path, e))
        return json.loads(payload.decode("utf-8")).get("value")

    def s(self, method, path, body=None, timeout=None):
        return self.request(method, "/session/%s%s" % (self.session, path), body, timeout)

    def execute(self, script, *args):
        return self.s("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        v = self.s("POST", "/element", {"using": "css selector", "value": css})
        if not isinstance(v, dict) or ELEMENT not in v:
            raise Failure("finding %s gave %r" % (css, v))
        return v[ELEMENT]


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, deadline, probe, interval=0.2):
    """Calls probe() until it returns a true value or the deadline passes."""
    last = None
    while True:
        last = probe()
        if last:
            return last
        if time.monotonic() >= deadline:
            raise Failure("timed out waiting for " + what)
        time.sleep(interval)


# ---------------------------------------------------------------- PNG decoding (stdlib only)

def decode_png(data):
    """Returns (width, height, channels, bytearray of rows without filter bytes) for 8-bit RGB/RGBA."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure("the screenshot is not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", chunk)
        elif ctype == b"IDAT":
            idat.append(chunk)
        elif ctype == b"IEND":
            break
    if ihdr is None or not idat:
        raise Failure("the screenshot PNG has no IHDR or IDAT")
    width, height, depth, colour, _, _, interlace = ihdr
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise Failure("the screenshot PNG is not 8-bit RGB/RGBA non-interlaced (depth %d, colour type %d)" % (depth, colour))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) < height * (stride + 1):
        raise Failure("the screenshot PNG's image data is truncated")
    out = bytearray(height * stride)
    prev = bytearray(stride)
    bpp = channels
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 0:
            pass
        elif f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 0xFF
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if (pa <= pb and pa <= pc) else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        else:
            raise Failure("the screenshot PNG uses an unknown filter type %d" % f)
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return width, height, channels, out


def check_png(data):
    width, height, ch, px = decode_png(data)
    n = width * height
    if n == 0:
        raise Failure("the screenshot is empty (0 pixels)")
    colours = collections.Counter(bytes(px[i:i + 3]) for i in range(0, len(px), ch))
    mode = colours.most_common(1)[0][0]
    mr, mg, mb = mode
    differing = dark = 0
    for colour, count in colours.items():
        r, g, b = colour
        if max(abs(r - mr), abs(g - mg), abs(b - mb)) > 32:
            differing += count
        if 0.299 * r + 0.587 * g + 0.114 * b < 80:
            dark += count
    frac, dark_frac = differing / n, dark / n
    log("screenshot %dx%d: %.1f%% of pixels differ from the most common colour #%02x%02x%02x, %.2f%% dark"
        % (width, height, 100 * frac, mr, mg, mb, 100 * dark_frac))
    if frac < 0.02:
        raise Failure("the screenshot looks blank: only %.2f%% of pixels differ from the background" % (100 * frac))
    if dark < 200:
        raise Failure("the screenshot has no dark pixels (%d): no visible text" % dark)


# ---------------------------------------------------------------- the test

STATE_JS = r"""
var tr = document.getElementById('translation');
var st = document.getElementById('status');
var res = document.getElementById('result');
var maps = document.querySelectorAll('.heatmap');
var cells = 0;
for (var i = 0; i < maps.length; i++) cells += maps[i].querySelectorAll('.cell').length;
return {
  translation: tr ? tr.textContent : null,
  status: st ? st.textContent : null,
  statusClass: st ? st.className : '',
  state: res ? res.getAttribute('data-state') : null,
  sentences: document.querySelectorAll('.sentence').length,
  heatmaps: maps.length,
  cells: cells
};
"""

HEATMAPS_JS = r"""
var out = [];
var maps = document.querySelectorAll('.heatmap');
for (var m = 0; m < maps.length; m++) {
  var cells = maps[m].querySelectorAll('.cell');
  var rows = {}, cols = {}, bad = 0, structural = true;
  for (var i = 0; i < cells.length; i++) {
    var c = cells[i];
    var w = parseFloat(c.getAttribute('data-weight'));
    if (!isFinite(w) || w < -1e-6 || w > 1 + 1e-6) bad++;
    var r = c.getAttribute('data-row'), k = c.getAttribute('data-col');
    if (r === null || k === null) { structural = false; continue; }
    rows[r] = (rows[r] || 0) + (isFinite(w) ? w : 0);
    cols[k] = true;
  }
  out.push({
    cells: cells.length, bad: bad, structural: structural,
    rowSums: Object.keys(rows).map(function (r) { return rows[r]; }),
    ncols: Object.keys(cols).length,
    srcHeaders: maps[m].querySelectorAll('thead th.src').length,
    tgtHeaders: maps[m].querySelectorAll('tbody th.tgt').length
  });
}
return out;
"""


def check_reachable(url, timeout):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            ctype = r.headers.get("Content-Type", "")
            body = r.read(65536)
    except urllib.error.HTTPError as e:
        raise Failure("GET %s answered HTTP %d" % (url, e.code))
    except (urllib.error.URLError, socket.timeout, OSError) as e:
        raise Failure("cannot reach %s: %s" % (url, getattr(e, "reason", e)))
    if "text/html" not in ctype:
        raise Failure("GET %s answered Content-Type %r, not text/html" % (url, ctype))
    if b"<html" not in body.lower():
        raise Failure("GET %s did not answer an HTML page" % url)


def die_with_parent():
    """In the child: SIGKILL when this test dies (Linux), so a killed test leaves no chromedriver."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def run(args, tmp, procs, state):
    overall = time.monotonic() + 3 * args.timeout + 60
    check_reachable(args.url, min(args.timeout, 30))
    port = free_port()
    driver_log = open(os.path.join(tmp, "chromedriver.log"), "wb")
    proc = subprocess.Popen([args.chromedriver, "--port=%d" % port], stdin=subprocess.DEVNULL,
                            stdout=driver_log, stderr=subprocess.STDOUT, start_new_session=True,
                            preexec_fn=die_with_parent)
    driver_log.close()  # the child has its own descriptor
    procs.append(proc)
    wd = WebDriver("http://127.0.0.1:%d" % port, overall)

    def driver_ready():
        if proc.poll() is not None:
            raise Failure("chromedriver exited with status %d at start-up" % proc.returncode)
        try:
            v = wd.request("GET", "/status", timeout=2)
            return v and v.get("ready")
        except Failure:
            return False
    wait_for("chromedriver to start", time.monotonic() + min(30, args.timeout), driver_ready)

    profile = os.path.join(tmp, "profile")
    os.mkdir(profile)
    width, height = args.window
    options = {
        "binary": args.chromium,
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=%d,%d" % (max(width, 500), height), "--user-data-dir=" + profile,
                 "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                 "--disable-background-networking", "--disable-sync", "--hide-scrollbars",
                 "--force-device-scale-factor=1", "--lang=en-US"],
    }
    if width < 500:
        # Chromium's windows are at least 500 px wide: emulate a narrower screen (a phone) instead.
        options["mobileEmulation"] = {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 1.0,
                                                        "mobile": True, "touch": False}}
    caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "pageLoadStrategy": "normal",
                                             "goog:chromeOptions": options}}}
    v = wd.request("POST", "/session", caps, timeout=wd._timeout(max(30, args.timeout)))
    wd.session = v["sessionId"]
    state["wd"] = wd
    log("session %s, %s %s" % (wd.session, v["capabilities"].get("browserName"),
                               v["capabilities"].get("browserVersion")))
    wd.s("POST", "/timeouts", {"script": 20000, "pageLoad": int(args.timeout * 1000), "implicit": 0})

    wd.s("POST", "/url", {"url": args.url}, timeout=args.timeout + 15)
    deadline = time.monotonic() + args.timeout

    def model_ready():
        v = wd.execute("var l = document.getElementById('languages');"
                       "return [document.documentElement.getAttribute('data-model'), l ? l.textContent : null];")
        if v[0] == "error":
            raise Failure("the page could not load the model information (GET /v1/model)")
        return v[0] == "ready" and (v[1] or "").strip() and v[1]
    langs = wait_for("the page's model information", deadline, model_ready)
    log("page loaded, languages: %s" % langs.strip())

    for sel in ("#source", "#beam", "#translate", "#status", "#result", "#translation"):
        wd.find(sel)  # raises if missing
    check_tag_choice(wd, args)
    if wd.execute("return document.getElementById('translate').tagName") != "BUTTON":
        raise Failure("#translate is not a <button>")

    source = wd.find("#source")
    wd.s("POST", "/element/%s/clear" % source)
    text = SOURCE_TEXT if args.tag is None else SOURCE_TEXT_EN
    wd.s("POST", "/element/%s/value" % source, {"text": text})
    typed = wd.execute("return document.getElementById('source').value")
    if typed != text:
        raise Failure("typing into #source gave %r" % typed)
    beam = wd.find("#beam")
    wd.s("POST", "/element/%s/clear" % beam)
    wd.s("POST", "/element/%s/value" % beam, {"text": BEAM})
    got = wd.execute("return document.getElementById('beam').value")
    if got != BEAM:
        raise Failure("#beam holds %r after typing %s" % (got, BEAM))
    wd.s("POST", "/element/%s/click" % wd.find("#translate"))
    t0 = time.monotonic()

    last = {}

    def translated():
        st = wd.execute(STATE_JS)
        last.update(st)
        if st["state"] == "error" or "error" in (st["statusClass"] or "").split():
            raise Failure("the page shows an error: %s" % (st["status"] or "").strip())
        if (st["translation"] or "").strip() and st["heatmaps"] > 0 and st["cells"] > 0:
            return st
        if st["state"] == "done":  # the page has rendered the whole answer: it will not change
            if not (st["translation"] or "").strip():
                raise Failure("the translation is empty (%d sentence blocks; status line: %r)"
                              % (st["sentences"], (st["status"] or "").strip()))
            raise Failure("no heat-map with .cell elements: does the model have attention? (%d heat-maps, %d cells)"
                          % (st["heatmaps"], st["cells"]))
        return None
    try:
        st = wait_for("the translation", time.monotonic() + args.timeout, translated, interval=0.25)
    except Failure as e:
        if not str(e).startswith("timed out"):
            raise
        raise Failure("timed out after %g s waiting for the translation and its heat-maps (status line: %r, "
                      "%d heat-maps, %d cells)" % (args.timeout, (last.get("status") or "").strip()[:200],
                                                   last.get("heatmaps", 0), last.get("cells", 0)))
    log("translated in %.2f s: %r" % (time.monotonic() - t0, st["translation"].strip()[:120]))
    if args.tag is not None:
        # The sentence blocks name the direction asked for, not the model's first one.
        marked = wd.execute("var s = document.querySelector('.sentence dd.src'), t = document.querySelector('.sentence dd.tgt');"
                            "return [s && s.lang, t && t.lang];")
        if marked != args.direction:
            raise Failure("the sentence blocks mark the languages %r, the direction asked for is %r"
                          % (marked, args.direction))
        bodies = [json.loads(b) for b in wd.execute("return window.__requests || [];")]
        tags = [b.get("tag") for b in bodies]
        if tags != [args.tag]:
            raise Failure("the page's translation requests carried the tags %r, expected [%r]" % (tags, args.tag))
        log("the request carried tag %s" % args.tag)
    log("status: %s" % (st["status"] or "").strip())

    if st["sentences"] != 2:
        raise Failure("expected 2 .sentence blocks, found %d" % st["sentences"])
    maps = wd.execute(HEATMAPS_JS)
    if len(maps) != 2:
        raise Failure("expected a .heatmap for each of the 2 sentences, found %d" % len(maps))
    for k, m in enumerate(maps, 1):
        if m["cells"] == 0:
            raise Failure("heat-map %d has no .cell elements" % k)
        if m["bad"]:
            raise Failure("heat-map %d has %d cells without a data-weight in [0, 1]" % (k, m["bad"]))
        if m["structural"]:
            nrows = len(m["rowSums"])
            if nrows * m["ncols"] != m["cells"]:
                raise Failure("heat-map %d: %d cells for %d rows x %d columns" % (k, m["cells"], nrows, m["ncols"]))
            for i, s in enumerate(m["rowSums"]):
                if abs(s - 1.0) > 0.02:
                    raise Failure("heat-map %d: row %d's weights sum to %.4f, not 1" % (k, i, s))
            if m["srcHeaders"] and m["srcHeaders"] != m["ncols"]:
                raise Failure("heat-map %d: %d source headers for %d columns" % (k, m["srcHeaders"], m["ncols"]))
            if m["tgtHeaders"] and m["tgtHeaders"] != nrows:
                raise Failure("heat-map %d: %d target labels for %d rows" % (k, m["tgtHeaders"], nrows))
            log("heat-map %d: %d target x %d source pieces, rows sum to 1" % (k, nrows, m["ncols"]))
        else:
            log("heat-map %d: %d cells (no data-row/data-col: row sums not checked)" % (k, m["cells"]))

    # Hover: move the pointer onto a cell of the first heat-map's first row.
    cell = wd.find(".heatmap .cell")
    wd.execute("arguments[0].scrollIntoView({block: 'center', inline: 'nearest'});", {ELEMENT: cell})
    wd.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                           "actions": [{"type": "pointerMove", "duration": 0,
                                                        "origin": {ELEMENT: cell}, "x": 0, "y": 0}]}]})
    hl_js = "return document.querySelector('.heatmap').querySelectorAll('thead th.hl').length;"
    n = wait_for("a highlighted source header after hovering a heat-map cell", time.monotonic() + 5,
                 lambda: wd.execute(hl_js))
    log("hovering a cell highlights %d source header(s)" % n)
    active = wd.execute("return document.querySelectorAll('.heatmap tr.active').length")
    if active:
        log("hover outlines the target row")

    # Move the pointer away (to the page's top-left corner) so that it cannot interfere with focus.
    wd.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                           "actions": [{"type": "pointerMove", "duration": 0,
                                                        "origin": "viewport", "x": 1, "y": 1}]}]})
    # Keyboard: focusing a target piece must highlight too (when the page makes row labels focusable).
    focusable = wd.execute("var t = document.querySelectorAll('.heatmap')[1];"
                           "var th = t && t.querySelector('th[tabindex]');"
                           "if (!th) return false; th.focus(); return true;")
    if focusable:
        k = wait_for("a highlight after focusing a target piece", time.monotonic() + 5, lambda: wd.execute(
            "var t = document.querySelectorAll('.heatmap')[1];"
            "return t.querySelectorAll('thead th.hl').length;"))
        log("keyboard focus highlights %d source header(s)" % k)
        wd.execute("document.activeElement && document.activeElement.blur();")

    # Nothing may come from another origin (the page must work offline).
    foreign = wd.execute("return performance.getEntriesByType('resource').map(function (e) { return e.name; })"
                         ".filter(function (u) { return !u.startsWith(location.origin + '/') && !u.startsWith('data:'); });")
    if foreign:
        raise Failure("the page fetched from another origin: %s" % ", ".join(foreign[:3]))
    overflow = wd.execute("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
    if overflow > 1:
        raise Failure("the page overflows the window horizontally by %d px" % overflow)

    # The screenshot: the status line at the top, the result below it, a heat-map row hovered if in view.
    if args.from_top:  # the whole page from its title (docs/images/serve-page.png)
        wd.execute("window.scrollTo(0, 0);")
    else:
        wd.execute("var s = document.getElementById('status');"
                   "window.scrollTo(0, Math.max(0, s.getBoundingClientRect().top + window.scrollY - 12));")
    time.sleep(0.2)
    target = wd.execute("var m = document.querySelector('.heatmap'); var rows = m.querySelectorAll('tbody tr');"
                        "var r = rows[Math.floor(rows.length / 2)] || rows[0];"
                        "var c = r && r.querySelectorAll('.cell'); c = c && c[Math.floor(c.length / 2)];"
                        "if (!c) return null; var b = c.getBoundingClientRect();"
                        "return b.top >= 0 && b.bottom <= window.innerHeight && b.left >= 0 && b.right <= window.innerWidth ? c : null;")
    if target:
        wd.s("POST", "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                               "actions": [{"type": "pointerMove", "duration": 0,
                                                            "origin": target, "x": 0, "y": 0}]}]})
        time.sleep(0.2)
    png = base64.b64decode(wd.s("GET", "/screenshot"))
    wd.s("DELETE", "/actions")
    os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
    with open(args.screenshot, "wb") as f:
        f.write(png)
    log("screenshot: %s (%d bytes)" % (args.screenshot, len(png)))
    check_png(png)
    return wd


def check_tag_choice(wd, args):
    """The direction selector: hidden for a model without tags; for a tagged one, every tag offered,
    the model's default chosen, TAG chosen by a click, the source's language following it, and the
    translation requests recorded (window.__requests) for the check after translating."""
    hidden = wd.execute("return document.getElementById('tag-field').hidden;")
    if args.tag is None:
        if not hidden:
            raise Failure("#tag-field is shown for a model without tags")
        return
    if hidden:
        raise Failure("#tag-field is hidden for a tagged model")
    with urllib.request.urlopen(args.url.rstrip("/") + "/v1/model", timeout=10) as r:
        info = json.loads(r.read().decode("utf-8"))
    offered = wd.execute("return Array.prototype.map.call(document.querySelectorAll('#tag option'),"
                         " function (o) { return [o.value, o.textContent]; });")
    if [v for v, _ in offered if v] != info["tags"]:
        raise Failure("#tag offers %r, the model's tags are %r" % ([v for v, _ in offered], info["tags"]))
    chosen = wd.execute("return document.getElementById('tag').value;")
    if chosen != info["default_tag"]:
        raise Failure("#tag starts at %r, not the model's default tag %r" % (chosen, info["default_tag"]))
    if args.tag not in info["tags"]:
        raise Failure("--tag %s is not one of the model's tags %r" % (args.tag, info["tags"]))
    wd.s("POST", "/element/%s/click" % wd.find("#tag option[value='%s']" % args.tag))
    if wd.execute("return document.getElementById('tag').value;") != args.tag:
        raise Failure("clicking the option %s did not choose it" % args.tag)
    direction = [d for d in info["directions"] if d["tag"] == args.tag]
    args.direction = [direction[0]["source"], direction[0]["target"]] if direction else [None, None]
    if direction:
        lang = wd.execute("return document.getElementById('source').lang;")
        if lang != direction[0]["source"]:
            raise Failure("after choosing %s the source is marked lang=%r, not %r"
                          % (args.tag, lang, direction[0]["source"]))
    log("tags offered: %s; default %s; chose %s (%s)" % (
        ", ".join(text for _, text in offered), info["default_tag"], args.tag,
        wd.execute("return document.getElementById('languages').textContent;")))
    wd.execute("window.__requests = []; var f = window.fetch;"
               "window.fetch = function (url, o) { if (o && o.body) window.__requests.push(o.body);"
               " return f.apply(this, arguments); };")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    ap.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--window-size", default="1200,900", help="WIDTH,HEIGHT of the browser window")
    ap.add_argument("--from-top", action="store_true", help="take the screenshot from the top of the page")
    ap.add_argument("--tag", help="a tagged model: choose this tag in #tag and check the request carries it")
    args = ap.parse_args()
    if args.timeout <= 0:
        ap.error("--timeout must be positive")
    try:
        args.window = tuple(int(v) for v in args.window_size.split(","))
        if len(args.window) != 2 or min(args.window) < 200:
            raise ValueError
    except ValueError:
        ap.error("--window-size must be WIDTH,HEIGHT in pixels, each at least 200")

    for name, path in (("chromium", args.chromium), ("chromedriver", args.chromedriver)):
        resolved = shutil.which(path)
        if not resolved:
            print("SKIP: %s not found at %s" % (name, path), flush=True)
            return SKIP
        setattr(args, name, resolved)

    def on_alarm(signum, frame):
        raise Deadline("the test ran past its overall time limit")

    def on_signal(signum, frame):
        raise Deadline("stopped by signal %d" % signum)
    signal.signal(signal.SIGALRM, on_alarm)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, on_signal)
    signal.alarm(int(4 * args.timeout + 120))

    tmp = tempfile.mkdtemp(prefix="nmt-browser-test-")
    procs, state, reason = [], {}, None
    try:
        run(args, tmp, procs, state)
    except (Failure, Deadline) as e:
        reason = str(e)
    except Exception as e:  # a bug in the test or an unexpected reply: still one line, still clean up
        if os.environ.get("BROWSER_TEST_DEBUG"):
            import traceback
            traceback.print_exc()
        reason = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    finally:
        signal.alarm(0)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):  # clean-up is bounded: let it finish
            signal.signal(sig, signal.SIG_IGN)
        if reason is not None:
            failure_screenshot(state.get("wd"), args.screenshot)
        cleanup(procs, state.get("wd"), tmp, reason is not None)
    if reason is None:
        log("PASS")
        return 0
    print("FAIL: %s" % reason, file=sys.stderr, flush=True)
    return 1


def failure_screenshot(wd, path):
    """Best effort: what the page showed when the test failed, for a person to look at."""
    if wd is None or not wd.session:
        return
    try:
        wd.deadline = time.monotonic() + 10
        png = base64.b64decode(wd.s("GET", "/screenshot", timeout=10))
        with open(path, "wb") as f:
            f.write(png)
        log("screenshot of the failure: %s" % path)
    except Exception:
        pass


def cleanup(procs, wd, tmp, failed):
    # Quit the session politely (closes Chromium), then stop chromedriver and its process group.
    if wd is not None and wd.session and procs and procs[0].poll() is None:
        try:
            urllib.request.urlopen(urllib.request.Request(
                "%s/session/%s" % (wd.base, wd.session), method="DELETE"), timeout=15).close()
        except Exception:
            pass
    for proc in procs:
        if proc.poll() is None:
            for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
                try:
                    os.killpg(proc.pid, sig)
                except (ProcessLookupError, PermissionError):
                    break
                try:
                    proc.wait(wait)
                    break
                except subprocess.TimeoutExpired:
                    pass
        # Chromium may outlive chromedriver in its process group for a moment.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if failed and (wd is None or not wd.session):  # chromedriver or Chromium did not start: say why
        logf = os.path.join(tmp, "chromedriver.log")
        try:
            with open(logf, "rb") as f:
                tail = f.read()[-1500:].decode("utf-8", "replace").strip()
            if tail:
                print("browser_test: chromedriver log tail:\n" + tail, file=sys.stderr)
        except OSError:
            pass
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
