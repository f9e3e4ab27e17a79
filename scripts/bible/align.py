"""Length-based alignment of two verse sequences (after Gale & Church 1993).

Each verse is reduced to its length in characters.  A bead joins 1-1, 1-2,
2-1, 2-2, 1-0 or 0-1 consecutive verses (and 1-k, k-1 up to MAX_MERGE);
dynamic programming finds the cheapest sequence of beads, where a bead costs
-log(prior of its move) plus, for matches, -log P(a length difference at
least this large).

Differences from Gale & Church's sentence aligner, each prompted by these
Bibles: the difference ``(ratio * len1 - len2) / sqrt(mean length)`` has
heavier tails than a normal distribution (its 99.9th percentile is about
twice what a normal with the same median predicts), so it is modelled with
a Student t distribution (6 degrees of freedom fit the measured quantiles);
with a normal model, one loosely translated verse made the aligner merge and
drop neighbours instead.  A deletion costs only its prior: scoring it like a
match (Gale & Church) makes dropping one long verse so expensive that whole
runs are shifted instead.  Priors favour 1-1 far more strongly than for
sentences, and a few more moves are allowed (2-2, long merges).

Only cells near an expected path ("anchors", e.g. where verses with the same
reference meet) are filled.  If the best path touches the edge of that band,
the band is doubled and the alignment redone, so the band limits cost, not
the result.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

# Base moves (source verses, target verses) and their prior probabilities.
# 2-2 covers a verse boundary placed differently (RV 2 Samuel 2:31 ends
# with what the WEB puts at the start of 2:32).
# Verse alignment is almost always 1-1; Gale & Church's sentence priors
# (0.89 / 0.089 / 0.0099) would merge verses whenever lengths are a bit off.
DEFAULT_PRIORS = {(1, 1): 0.99, (1, 0): 0.001, (0, 1): 0.001, (2, 1): 0.004, (1, 2): 0.004,
                  (2, 2): 0.001}
# Longer merges 1-k and k-1 (3 <= k <= MAX_MERGE) have prior
# P(1-2) * MERGE_DECAY**(k-2).  The RV1909 packs up to 9 verses into one
# where its source numbering has fewer verses (Job 39:30 = WEB 39:27-40:5).
MAX_MERGE = 10
MERGE_DECAY = 0.2
# Prior of dropping a source verse that is expected to have no partner
# because the target leaves its reference empty (the WEB omits Luke 17:36,
# Acts 8:37, 15:34, 24:7 and prints Romans 16:25-27 after 14:23).  Lengths
# alone often cannot tell which of several similar verses lacks a partner;
# without this, RV Acts 8:37 was paired with WEB 8:38 and RV 8:38 dropped.
EXPECTED_DROP_PRIOR = 0.5
DEFAULT_DOF = 6


def t_tail(x: float, dof: int = DEFAULT_DOF) -> float:
    """P(|T| >= x) for Student's t with an even number of degrees of freedom.

    Closed form: with u = dof / (dof + x^2), the two-sided tail is
    1 - sqrt(1 - u) * sum_k c_k u^k, c_0 = 1, c_k = c_(k-1) (2k - 1) / (2k),
    for k < dof / 2.
    """
    if dof < 2 or dof % 2:
        raise ValueError("dof must be a positive even number")
    x = abs(x)
    u = dof / (dof + x * x)
    term = total = 1.0
    for k in range(1, dof // 2):
        term *= u * (2 * k - 1) / (2 * k)
        total += term
    return max(1.0 - math.sqrt(1.0 - u) * total, 1e-300)


def _t_median(dof: int) -> float:
    """Median of |T| (bisection on t_tail)."""
    lo, hi = 0.0, 10.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_tail(mid, dof) > 0.5 else (lo, mid)
    return (lo + hi) / 2


@dataclass(frozen=True)
class LengthModel:
    ratio: float = 1.0      # expected target/source length ratio
    scale: float = 1.3      # scale of the standardised length difference
    dof: int = DEFAULT_DOF
    expected_drop_prior: float = EXPECTED_DROP_PRIOR
    priors: dict = field(default_factory=lambda: dict(DEFAULT_PRIORS))


@dataclass(frozen=True)
class Bead:
    """Source verses [src_start, src_end) aligned to target [tgt_start, tgt_end)."""
    src_start: int
    src_end: int
    tgt_start: int
    tgt_end: int
    cost: float

    @property
    def move(self) -> tuple[int, int]:
        return (self.src_end - self.src_start, self.tgt_end - self.tgt_start)


def length_difference(len1: int, len2: int, ratio: float) -> float:
    """Standardised difference: (ratio*len1 - len2) / sqrt(mean length)."""
    mean = (len1 + len2 / ratio) / 2.0
    return (ratio * len1 - len2) / math.sqrt(mean)


def fit_length_model(pairs, priors=None, dof: int = DEFAULT_DOF) -> LengthModel:
    """Estimate ratio and scale from (source, target) length pairs.

    The pairs should mostly be translations of each other (e.g. verses with
    the same reference); the scale comes from the median, so a minority of
    mismatched pairs does not inflate it.
    """
    priors = dict(priors or DEFAULT_PRIORS)
    pairs = [(a, b) for a, b in pairs if a > 0 and b > 0]
    if not pairs:
        return LengthModel(priors=priors, dof=dof)
    ratio = sum(b for _, b in pairs) / sum(a for a, _ in pairs)
    spread = statistics.median(abs(length_difference(a, b, ratio)) for a, b in pairs)
    return LengthModel(ratio, max(spread, 1e-3) / _t_median(dof), dof, priors=priors)


def match_cost(len1: int, len2: int, model: LengthModel) -> float:
    """-log P(a length difference at least this large | translations).

    A deletion (one length 0) costs nothing here: its whole cost is the move
    prior.
    """
    if len1 == 0 or len2 == 0:
        return 0.0
    return -math.log(t_tail(length_difference(len1, len2, model.ratio) / model.scale, model.dof))


def align(src_lens: list[int], tgt_lens: list[int], model: LengthModel,
          anchors: list[int] | None = None, band: int = 8,
          expect_unmatched: list[bool] | None = None) -> list[Bead]:
    """Cheapest bead sequence covering both sequences completely.

    ``anchors[i]`` (for i in 0..len(src_lens)) is the target position
    expected at source position i; by default the straight diagonal.
    ``band`` is the initial half-width of the searched band.
    ``expect_unmatched[i]`` marks source verses expected to have no partner;
    dropping them costs only ``model.expected_drop_prior``.
    """
    n, m = len(src_lens), len(tgt_lens)
    if anchors is None:
        anchors = [round(i * m / n) if n else m for i in range(n + 1)]
    if len(anchors) != n + 1:
        raise ValueError("need one anchor per source position, plus one")
    # Clip to the matrix and make non-decreasing, so that band rows overlap.
    anchors = [min(max(a, 0), m) for a in anchors]
    anchors[0], anchors[n] = 0, m
    for i in range(1, n + 1):
        anchors[i] = max(anchors[i], anchors[i - 1])
    if expect_unmatched is None:
        expect_unmatched = [False] * n
    width = max(2, band)
    while True:
        beads, touched = _align_band(src_lens, tgt_lens, model, anchors, width, expect_unmatched)
        if beads is not None and (not touched or width >= n + m):
            return beads
        width *= 2


def _align_band(src, tgt, model, anchors, width, expect_unmatched):
    """One banded DP pass: (beads or None, whether the path hit the band edge)."""
    n, m = len(src), len(tgt)
    lo = [max(0, a - width) for a in anchors]
    hi = [min(m, a + width) for a in anchors]
    cum_src, cum_tgt = [0], [0]
    for x in src:
        cum_src.append(cum_src[-1] + x)
    for x in tgt:
        cum_tgt.append(cum_tgt[-1] + x)
    priors = model.priors
    cost_of = {mv: -math.log(p) for mv, p in priors.items() if p > 0}
    p11, p10, p01, p21, p12, p22 = (cost_of.get(mv, math.inf) for mv in (
        (1, 1), (1, 0), (0, 1), (2, 1), (1, 2), (2, 2)))
    p10_expected = -math.log(model.expected_drop_prior)
    long_cost = [math.inf] * 3 + [
        p12 - (k - 2) * math.log(MERGE_DECAY) for k in range(3, MAX_MERGE + 1)]

    # match_cost, inlined for speed.
    ratio, scale, dof = model.ratio, model.scale, model.dof
    sqrt, log = math.sqrt, math.log
    coeffs = [1.0]
    for k in range(1, dof // 2):
        coeffs.append(coeffs[-1] * (2 * k - 1) / (2 * k))

    memo: dict[int, float] = {}

    def cc(l1, l2):
        key = l1 * 1_000_000 + l2
        cost = memo.get(key)
        if cost is None:
            x = (ratio * l1 - l2) / (scale * sqrt((l1 + l2 / ratio) / 2.0))
            u = dof / (dof + x * x)
            total, power = 0.0, 1.0
            for c in coeffs:
                total += c * power
                power *= u
            tail = 1.0 - sqrt(1.0 - u) * total
            cost = memo[key] = -log(tail) if tail > 1e-300 else 690.8
        return cost

    inf = math.inf
    rows: list[list[float]] = []
    backs: list[list[tuple[int, int] | None]] = []
    for i in range(n + 1):
        rlo, rhi = lo[i], hi[i]
        costs = [inf] * (rhi - rlo + 1)
        back: list[tuple[int, int] | None] = [None] * (rhi - rlo + 1)
        if i >= 1:
            prev, plo, l1 = rows[i - 1], lo[i - 1], src[i - 1]
            phi = plo + len(prev) - 1
            p10_here = p10_expected if expect_unmatched[i - 1] else p10
        if i >= 2:
            prev2, plo2, l21 = rows[i - 2], lo[i - 2], src[i - 1] + src[i - 2]
            phi2 = plo2 + len(prev2) - 1
        for j in range(rlo, rhi + 1):
            if i == 0 and j == 0:
                costs[0] = 0.0
                continue
            best, move = inf, None
            if j > rlo:  # 0-1 within this row
                c = costs[j - 1 - rlo] + p01
                if c < best:
                    best, move = c, (0, 1)
            if i >= 1:
                if plo <= j <= phi:  # 1-0
                    c = prev[j - plo] + p10_here
                    if c < best:
                        best, move = c, (1, 0)
                if j >= 1 and plo <= j - 1 <= phi:  # 1-1
                    c = prev[j - 1 - plo] + p11 + cc(l1, tgt[j - 1])
                    if c < best:
                        best, move = c, (1, 1)
                if j >= 2 and plo <= j - 2 <= phi:  # 1-2
                    c = prev[j - 2 - plo] + p12 + cc(l1, tgt[j - 1] + tgt[j - 2])
                    if c < best:
                        best, move = c, (1, 2)
                k = 3  # 1-k: only where the lengths make it plausible
                while k <= MAX_MERGE and j - k >= plo:
                    l2 = cum_tgt[j] - cum_tgt[j - k]
                    if l2 > 2.0 * ratio * l1:
                        break
                    if 2.0 * l2 >= ratio * l1 and j - k <= phi:
                        c = prev[j - k - plo] + long_cost[k] + cc(l1, l2)
                        if c < best:
                            best, move = c, (1, k)
                    k += 1
            if i >= 2 and j >= 1:
                if plo2 <= j - 1 <= phi2:  # 2-1
                    c = prev2[j - 1 - plo2] + p21 + cc(l21, tgt[j - 1])
                    if c < best:
                        best, move = c, (2, 1)
                if j >= 2 and plo2 <= j - 2 <= phi2:  # 2-2
                    c = prev2[j - 2 - plo2] + p22 + cc(l21, tgt[j - 1] + tgt[j - 2])
                    if c < best:
                        best, move = c, (2, 2)
                k = 3  # k-1
                l2 = tgt[j - 1]
                while k <= MAX_MERGE and i - k >= 0:
                    l1k = cum_src[i] - cum_src[i - k]
                    if ratio * l1k > 2.0 * l2:
                        break
                    pk = lo[i - k]
                    if 2.0 * ratio * l1k >= l2 and pk <= j - 1 < pk + len(rows[i - k]):
                        c = rows[i - k][j - 1 - pk] + long_cost[k] + cc(l1k, l2)
                        if c < best:
                            best, move = c, (k, 1)
                    k += 1
            costs[j - rlo] = best
            back[j - rlo] = move
        rows.append(costs)
        backs.append(back)
    if not lo[n] <= m <= hi[n] or rows[n][m - lo[n]] == inf:
        return None, True
    beads: list[Bead] = []
    touched = False
    i, j = n, m
    while i > 0 or j > 0:
        if (j == lo[i] and lo[i] > 0) or (j == hi[i] and hi[i] < m):
            touched = True
        di, dj = backs[i][j - lo[i]]
        pi, pj = i - di, j - dj
        beads.append(Bead(pi, i, pj, j, rows[i][j - lo[i]] - rows[pi][pj - lo[pi]]))
        i, j = pi, pj
    beads.reverse()
    return beads, touched
