"""Hands and arms: a pinching hand with fingers, thumb, forearm and sleeve, posed in 3-D.

Why 3-D shapes instead of image blobs: the hand hovers above the board and the arm rises toward
the player's shoulder, so under a tilted camera it occludes different points than its shadow
darkens, exactly the situation the tracker must cope with. Shapes are defined in a frame at the
fingertips (axis a toward the shoulder, b to its left, point-spacing units), lifted to heights,
projected through the camera; the shadow is the same outline projected along the light onto z=0.
"""
from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera

SKIN = [(175, 195, 238), (150, 175, 225), (120, 155, 210), (95, 130, 190), (70, 100, 155), (50, 72, 115), (38, 52, 85)]


HAND_KINDS = ("rig", "wide")
"""`rig`: the hands every bench set and test was rendered with. `wide`: hands the tracker was never
tuned on: gloves, watches and bracelets, striped sleeves, painted nails, skin tones beyond the
rig's table, hands from a child's to a large adult's."""


@dataclass
class HandLook:
    skin: tuple
    sleeve: tuple
    sleeve_start: float     # distance from fingertips where the sleeve begins
    sleeve_w: float
    scale: float
    bare_arm: bool
    cuff: bool
    glove: tuple | None = None        # the hand's colour where it wears a glove (arm stays bare or sleeved)
    watch: tuple | None = None        # a band round the wrist (watch strap, bracelet)
    stripes: tuple | None = None      # stripes across the sleeve, this colour
    nails: tuple | None = None        # painted nails


def draw_hand_look(rng: np.random.Generator, kind: str = "rig") -> HandLook:
    """One player's hand. `kind` (HAND_KINDS): "rig" draws exactly as every earlier render did;
    "wide" draws the rig's hand and then what it never had, from the same stream."""
    if kind not in HAND_KINDS:
        raise ValueError(f"unknown hand kind {kind!r}: choose one of {', '.join(HAND_KINDS)}")
    look = _draw_rig_hand(rng)
    if kind == "wide":
        look = _widen(look, rng)
    return look


def _colour(rng: np.random.Generator) -> tuple:
    hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(0, 255), rng.uniform(20, 245)]]])
    return tuple(float(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def _widen(look: HandLook, rng: np.random.Generator) -> HandLook:
    """The rig's hand, with the traits of hands it never rendered."""
    tone = rng.random()
    if tone < 0.25:     # skin beyond the rig's table: ruddy, olive, very dark, very pale
        base = np.asarray([(120, 140, 225), (110, 160, 170), (30, 40, 62), (205, 215, 240)][int(rng.integers(4))],
                          np.float64) * rng.uniform(0.92, 1.06, 3)
        look.skin = tuple(float(c) for c in np.clip(base, 0, 255))
    if rng.random() < 0.25:
        look.glove = _colour(rng) if rng.random() < 0.6 else ((235.0, 235.0, 235.0) if rng.random() < 0.5
                                                             else (30.0, 30.0, 30.0))
    if rng.random() < 0.45:
        look.watch = _colour(rng)
    if not look.bare_arm and rng.random() < 0.35:
        look.stripes = _colour(rng)
    if rng.random() < 0.3:
        look.nails = _colour(rng)
    look.scale = float(rng.uniform(0.78, 1.25))
    return look


def _draw_rig_hand(rng: np.random.Generator) -> HandLook:
    base = np.asarray(SKIN[int(rng.integers(len(SKIN)))], np.float64) * rng.uniform(0.92, 1.06, 3)
    hsv = np.uint8([[[rng.uniform(0, 180), rng.uniform(0, 140), rng.uniform(30, 220)]]])
    sleeve = tuple(float(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    if rng.random() < 0.3:
        g = rng.uniform(20, 90)
        sleeve = (g, g, g + rng.uniform(-5, 20))
    long_sleeve = rng.random() < 0.6
    return HandLook(skin=tuple(float(c) for c in np.clip(base, 0, 255)), sleeve=sleeve,
                    sleeve_start=float(rng.uniform(3.7, 5.5) if long_sleeve else rng.uniform(7.5, 9.5)),
                    sleeve_w=float(rng.uniform(1.2, 1.55) if long_sleeve else rng.uniform(1.35, 1.7)),
                    scale=float(rng.uniform(0.9, 1.12)), bare_arm=bool(rng.random() < 0.08),
                    cuff=bool(rng.random() < 0.5))


@dataclass
class HandPose:
    x: float          # fingertip point, board plane
    y: float
    z: float          # fingertip height above the board
    ax: float         # unit vector (board plane) from fingertips toward the shoulder
    ay: float
    grip: float = 0.5  # 0 = pinched, 1 = open hand


_ARC = np.linspace(0.0, np.pi, 7)


def _capsule(p0: np.ndarray, p1: np.ndarray, w: float, n: int = 6) -> np.ndarray:
    """Outline of a stadium (rounded segment) from p0 to p1 of width w (vectorised)."""
    d = np.asarray(p1, np.float64) - p0
    L = float(np.hypot(d[0], d[1])) + 1e-9
    u = d / L
    v = np.array([-u[1], u[0]])
    t0 = _ARC + np.pi / 2
    c0 = p0 + (w / 2) * (np.cos(t0)[:, None] * u + np.sin(t0)[:, None] * v)
    t1 = _ARC - np.pi / 2
    c1 = p1 + (w / 2) * (np.cos(t1)[:, None] * u + np.sin(t1)[:, None] * v)
    return np.vstack([c0, c1])


def _ellipse(c: np.ndarray, ra: float, rb: float, n: int = 18) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([c[0] + ra * np.cos(t), c[1] + rb * np.sin(t)], axis=-1)


def hand_parts(pose: HandPose, look: HandLook) -> list[tuple[str, np.ndarray]]:
    """[(part, (N, 3) world points)] in painter's order (arm first, fingers last).

    A right hand pinching from above: back of the hand behind the knuckle line, index finger and
    thumb reaching down around the piece at the tip point, the other fingers curled shorter.
    `grip` 0 = closed on a piece, 1 = open hand.
    """
    s = look.scale
    a = np.array([pose.ax, pose.ay])
    a = a / (np.linalg.norm(a) + 1e-9)
    b = np.array([-a[1], a[0]])
    tip = np.array([pose.x, pose.y])
    g = float(np.clip(pose.grip, 0, 1))

    local: list[tuple[str, np.ndarray, float]] = []

    def part(name: str, ab: np.ndarray, base: float) -> tuple[str, np.ndarray]:
        local.append((name, np.asarray(ab, np.float64), base))
        return name, None

    parts: list = []
    arm = np.array([[3.2, 0.72], [14.0 / s, 1.15], [14.0 / s, -1.15], [3.2, -0.72]])
    part("arm", arm, 0.7)
    if not look.bare_arm:
        st = look.sleeve_start
        sw = look.sleeve_w
        sl = np.array([[st, sw * 0.95], [16.0 / s, sw * 1.15], [16.0 / s, -sw * 1.15], [st, -sw * 0.95]])
        part("sleeve", sl, 0.85)
    back = np.array([[1.3, -0.92], [1.15, -0.45], [1.1, 0.0], [1.18, 0.5], [1.35, 0.95], [2.0, 1.08], [2.7, 0.95],
                     [3.35, 0.74], [3.45, 0.0], [3.35, -0.74], [2.8, -0.98], [2.0, -1.02]])
    part("palm", back, 0.6)
    # thumb: from the wrist side of the hand toward the piece, opposing the index finger
    th0, th1, th2 = np.array([2.7, -0.9]), np.array([1.55, -1.12 - 0.25 * g]), np.array([0.35 + 0.2 * g, -0.5 - 0.5 * g])
    part("thumb", _capsule(th0, th1, 0.56), 0.3)
    part("thumb", _capsule(th1, th2, 0.5), 0.15)
    # fingers: (knuckle, middle joint, tip) in local units, curled more the further from the index
    fingers = [((1.2, -0.55), (0.55, -0.5 - 0.15 * g), (0.0 - 0.4 * g, -0.2 - 0.3 * g), 0.44),
               ((1.12, -0.08), (0.45, 0.0), (0.1 - 0.45 * g, 0.22 + 0.1 * g), 0.46),
               ((1.18, 0.38), (0.62, 0.5), (0.4 - 0.4 * g, 0.58 + 0.2 * g), 0.42),
               ((1.32, 0.8), (0.9, 0.88 + 0.1 * g), (0.72 - 0.35 * g, 0.9 + 0.3 * g), 0.35)]
    for k, (kn, mid, tp, w) in enumerate(fingers):
        part(f"finger{k}", _capsule(np.array(kn), np.array(mid), w), 0.3)
        part(f"finger{k}", _capsule(np.array(mid), np.array(tp), w * 0.93), 0.12)
    # one batched local -> world transform for every outline
    allab = np.vstack([ab for _, ab, _ in local]) * s
    bases = np.concatenate([np.full(len(ab), base) for _, ab, base in local])
    xy = tip + np.outer(allab[:, 0], a) + np.outer(allab[:, 1], b)
    z = pose.z + bases + 0.22 * np.maximum(allab[:, 0] - 2.6 * s, 0) + 0.45 * np.maximum(allab[:, 0] - 8.5 * s, 0)
    world = np.column_stack([xy, z])
    out, k = [], 0
    for name, ab, _ in local:
        out.append((name, world[k:k + len(ab)]))
        k += len(ab)
    return out


def knuckles(pose: HandPose, look: HandLook) -> np.ndarray:
    """World points (5, 3): the four knuckles and the middle of the wrist (for highlights/tendons)."""
    s = look.scale
    a = np.array([pose.ax, pose.ay])
    a = a / (np.linalg.norm(a) + 1e-9)
    b = np.array([-a[1], a[0]])
    loc = np.array([[1.28, -0.55], [1.2, -0.08], [1.26, 0.38], [1.4, 0.8], [3.3, 0.0]]) * s
    xy = np.array([pose.x, pose.y]) + np.outer(loc[:, 0], a) + np.outer(loc[:, 1], b)
    return np.column_stack([xy, np.full(5, pose.z + 0.62)])


def project_parts(cam: Camera, parts: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """Project every part's outline in one call (per-call overhead dominates for small arrays)."""
    allp = cam.project_fast(np.vstack([p for _, p in parts]))
    out, k = [], 0
    for name, p in parts:
        out.append((name, allp[k:k + len(p)]))
        k += len(p)
    return out


def render_hand(img: np.ndarray, cam: Camera, pose: HandPose, look: HandLook, light: np.ndarray,
                mask_out: np.ndarray) -> tuple[int, int, int, int] | None:
    """Draw the hand/arm into img (in place) and its coverage into mask_out (uint8, 255 = hand).

    Returns the image box (x0, y0, x1, y1) it drew in, or None when the hand is out of view.
    """
    parts = hand_parts(pose, look)
    H, W = img.shape[:2]
    projected = project_parts(cam, parts)
    allp = np.vstack([p for _, p in projected])
    x0, y0 = np.floor(allp.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return None
    roi = img[y0:y1, x0:x1]
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    off = np.array([x0, y0], np.float64)
    skin = np.asarray(look.skin, np.float64)
    hand = np.asarray(look.glove, np.float64) if look.glove is not None else skin
    for name, p in projected:
        poly = np.round((p - off) * 16).astype(np.int32)
        if name == "sleeve":
            col = np.asarray(look.sleeve)
        elif name.startswith("finger") or name == "thumb":
            col = hand * 1.04
        elif name == "arm":
            col = skin * 0.93
        else:
            col = hand
        edge = tuple(float(c) for c in np.clip(col * 0.62, 0, 255))
        if name.startswith("finger") or name == "thumb":
            cv2.polylines(roi, [poly], True, edge, 2, cv2.LINE_AA, 4)
        cv2.fillPoly(roi, [poly], tuple(float(c) for c in np.clip(col, 0, 255)), cv2.LINE_AA, 4)
        if name == "sleeve" and look.cuff:
            cv2.polylines(roi, [poly[:2]], False, edge, 2, cv2.LINE_AA, 4)
        if name == "sleeve" and look.stripes is not None:
            # bands across the sleeve: lines between its two long sides
            a0, a1, b0, b1 = p[0], p[1], p[3], p[2]
            for f in np.linspace(0.08, 0.92, 7):
                q0, q1 = a0 + f * (a1 - a0) - off, b0 + f * (b1 - b0) - off
                cv2.line(roi, tuple(np.round(q0 * 16).astype(int)), tuple(np.round(q1 * 16).astype(int)),
                         tuple(float(c) for c in look.stripes), 3, cv2.LINE_AA, 4)
        if name == "arm" and look.watch is not None:
            # a band round the wrist, a little behind the back of the hand
            a0, a1, b0, b1 = p[0], p[1], p[3], p[2]
            f = 0.04
            q0, q1 = a0 + f * (a1 - a0) - off, b0 + f * (b1 - b0) - off
            width = max(2, int(0.035 * float(np.linalg.norm(a1 - a0))))
            cv2.line(roi, tuple(np.round(q0 * 16).astype(int)), tuple(np.round(q1 * 16).astype(int)),
                     tuple(float(c) for c in look.watch), width, cv2.LINE_AA, 4)
        cv2.fillPoly(m, [poly], 255, cv2.LINE_8, 4)
    # back of the hand: faint tendons from the knuckles toward the wrist, lighter knuckle bumps
    kn = cam.project_fast(knuckles(pose, look)) - off
    tendon = tuple(float(c) for c in np.clip(skin * 0.9, 0, 255))
    bump = tuple(float(c) for c in np.clip(skin * 1.1 + 6, 0, 255))
    for k in range(4):
        p0 = kn[k]
        p1 = kn[k] + 0.6 * (kn[4] - kn[k])
        cv2.line(roi, tuple(np.round(p0 * 16).astype(int)), tuple(np.round(p1 * 16).astype(int)), tendon, 1, cv2.LINE_AA, 4)
        cv2.circle(roi, tuple(np.round(p0 * 16).astype(int)), int(16 * max(1.0, 0.6 * float(np.linalg.norm(kn[4] - kn[0])) / 8)),
                   bump, -1, cv2.LINE_AA, 4)
    # nails: small pale ellipses near the fingertips (seen when the hand is pinching from above)
    tipw = cam.project_fast(np.array([[pose.x, pose.y, pose.z], [pose.x + 1.0, pose.y, pose.z]]))
    unit = float(np.linalg.norm(tipw[1] - tipw[0]))  # px per point spacing near the hand
    nail_col = tuple(float(c) for c in np.clip(hand * np.array([1.08, 1.1, 1.12]) + 18, 0, 255)) \
        if look.nails is None or look.glove is not None else tuple(float(c) for c in look.nails)
    seen = [k for k, (name, _) in enumerate(projected) if name.startswith("finger") or name == "thumb"]
    last = [k for k in seen if k + 1 >= len(projected) or projected[k + 1][0] != projected[k][0]]
    for k in last:
        name, p = projected[k]
        if True:
            q = p[len(p) // 2 + 2: len(p) // 2 + 5].mean(axis=0) - off  # points near the far cap
            r = max(1, int(0.11 * unit * look.scale))
            cv2.ellipse(roi, (int(q[0]), int(q[1])), (r, max(1, int(r * 0.75))), 0, 0, 360, nail_col, -1, cv2.LINE_AA)
    # rounded look: darker toward the silhouette, brighter on the side facing the light
    f = 4
    small = cv2.resize(m, (max(1, m.shape[1] // f), max(1, m.shape[0] // f)), interpolation=cv2.INTER_AREA)
    sig = max(1.0, 0.3 * unit / f)
    soft = cv2.GaussianBlur(small, (0, 0), sig).astype(np.float32) / 255.0
    ctr = cam.project_fast(np.array([[pose.x, pose.y, 0.0], [pose.x + light[0], pose.y + light[1], 0.0]]))
    d = ctr[1] - ctr[0]
    d = d / (np.linalg.norm(d) + 1e-9) * 0.35 * unit / f
    M = np.float32([[1, 0, -d[0]], [0, 1, -d[1]]])
    lit = cv2.warpAffine(soft, M, (soft.shape[1], soft.shape[0]), borderMode=cv2.BORDER_CONSTANT)
    shade_s = np.clip(0.42 + 0.45 * np.sqrt(soft) + 0.28 * lit, 0.3, 1.15)
    shade = cv2.resize(shade_s, (m.shape[1], m.shape[0]), interpolation=cv2.INTER_LINEAR)
    sel = m > 0
    roi[sel] = np.clip(roi[sel].astype(np.float32) * shade[sel][:, None], 0, 255).astype(np.uint8)
    mask_out[y0:y1, x0:x1] = np.maximum(mask_out[y0:y1, x0:x1], m)
    return int(x0), int(y0), int(x1), int(y1)


def shadow_polygons(cam: Camera, pose: HandPose, look: HandLook, light: np.ndarray) -> list[np.ndarray]:
    """Image polygons of the hand's shadow on the board plane (cast along `light`, unit 3-vector)."""
    lz = max(float(light[2]), 0.25)
    parts = hand_parts(pose, look)
    flat = [(name, np.column_stack([p[:, :2] - np.outer(p[:, 2] / lz, light[:2]), np.zeros(len(p))])) for name, p in parts]
    return [p for _, p in project_parts(cam, flat)]


@dataclass(frozen=True)
class RestingHand:
    """A player's free hand lying on the table at their edge of the board: where, and when."""

    side: str                       # "w" (red, beyond rank 0) or "b" (black, beyond rank 9)
    x: float                        # fingertip file position while at rest
    y: float                        # fingertip rank position while at rest (in the ring beyond the edge)
    ax: float                       # unit vector from the fingertips toward the shoulder
    ay: float
    grip: float
    phase: float                    # of its tremble (radians)
    spells: tuple[tuple[float, float], ...]   # (start, end) video seconds it lies there


REST_SLIDE_S = 0.4      # a resting hand slides in (or out) over this long
REST_AWAY = 6.0         # ... from this far beyond its resting place (spacings): out of most views
REST_TREMBLE = 0.012    # spacings: a hand at rest is never quite still


def resting_schedule(rng: np.random.Generator, duration_s: float) -> list[RestingHand]:
    """Both players' free hands: each rests its fingertips on the ring of table just beyond its own
    edge of the board (never over the points: a resting hand plays no part) for spells of 2.5-8 s,
    away for 1.5-5 s between them, the arm turned up to 35 degrees off straight back."""
    out = []
    for side in ("w", "b"):
        th = float(np.radians(rng.uniform(-35.0, 35.0)))
        back = -1.0 if side == "w" else 1.0
        edge = -1.15 - float(rng.uniform(0.0, 0.3))
        y = edge if side == "w" else 9.0 - edge
        spells = []
        t = float(rng.uniform(0.0, 2.0))
        while t < duration_s:
            on = float(rng.uniform(2.5, 8.0))
            spells.append((t, min(duration_s, t + on)))
            t += on + float(rng.uniform(1.5, 5.0))
        out.append(RestingHand(side, float(rng.uniform(1.0, 7.0)), y, float(np.sin(th)), back * float(np.cos(th)),
                               float(rng.uniform(0.75, 1.0)), float(rng.uniform(0, 2 * np.pi)), tuple(spells)))
    return out


def resting_pose(hand: RestingHand, t: float) -> HandPose | None:
    """Where the resting hand is at video time `t`, or None while it is away."""
    for t0, t1 in hand.spells:
        if t0 <= t <= t1:
            k = float(np.clip(min(t - t0, t1 - t) / REST_SLIDE_S, 0.0, 1.0))
            k = k * k * (3 - 2 * k)
            away = (1.0 - k) * REST_AWAY
            wob = REST_TREMBLE * np.sin(2 * np.pi * 1.3 * t + hand.phase)
            return HandPose(x=hand.x + away * hand.ax + wob, y=hand.y + away * hand.ay + 0.7 * wob, z=0.0,
                            ax=hand.ax, ay=hand.ay, grip=hand.grip)
    return None
