"""Hands and arms: a pinching hand with fingers, thumb, forearm and sleeve, posed in 3-D.

Why 3-D shapes instead of image blobs: the hand hovers above the board and the arm rises toward
the player's shoulder, so under a tilted camera it occludes different points than its shadow
darkens, exactly the situation the tracker must cope with. Shapes are defined in a frame at the
fingertips (axis a toward the shoulder, b to its left, point-spacing units), lifted to heights,
projected through the camera; the shadow is the same outline projected along the light onto z=0.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera

SKIN = [(175, 195, 238), (150, 175, 225), (120, 155, 210), (95, 130, 190), (70, 100, 155), (50, 72, 115), (38, 52, 85)]


@dataclass
class HandLook:
    skin: tuple
    sleeve: tuple
    sleeve_start: float     # distance from fingertips where the sleeve begins
    sleeve_w: float
    scale: float
    bare_arm: bool
    cuff: bool


def draw_hand_look(rng: np.random.Generator) -> HandLook:
    base = np.asarray(SKIN[int(rng.integers(len(SKIN)))], np.float64) * rng.uniform(0.92, 1.06, 3)
    sleeve = tuple(float(c) for c in rng.uniform(15, 230, 3))
    if rng.random() < 0.3:
        g = rng.uniform(20, 90)
        sleeve = (g, g, g + rng.uniform(-5, 20))
    return HandLook(skin=tuple(float(c) for c in np.clip(base, 0, 255)), sleeve=sleeve,
                    sleeve_start=float(rng.uniform(5.0, 8.0)), sleeve_w=float(rng.uniform(1.25, 1.6)),
                    scale=float(rng.uniform(0.9, 1.12)), bare_arm=bool(rng.random() < 0.25),
                    cuff=bool(rng.random() < 0.5))


@dataclass
class HandPose:
    x: float          # fingertip point, board plane
    y: float
    z: float          # fingertip height above the board
    ax: float         # unit vector (board plane) from fingertips toward the shoulder
    ay: float
    grip: float = 0.5  # 0 = pinched, 1 = open hand


def _capsule(p0: np.ndarray, p1: np.ndarray, w: float, n: int = 6) -> np.ndarray:
    d = p1 - p0
    L = np.linalg.norm(d) + 1e-9
    u = d / L
    v = np.array([-u[1], u[0]])
    pts = []
    for k in range(n + 1):
        t = math.pi / 2 + math.pi * k / n
        pts.append(p0 + w / 2 * (math.cos(t) * u + math.sin(t) * v))
    for k in range(n + 1):
        t = -math.pi / 2 + math.pi * k / n
        pts.append(p1 + w / 2 * (math.cos(t) * u + math.sin(t) * v))
    return np.array(pts)


def _ellipse(c: np.ndarray, ra: float, rb: float, n: int = 18) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([c[0] + ra * np.cos(t), c[1] + rb * np.sin(t)], axis=-1)


def hand_parts(pose: HandPose, look: HandLook) -> list[tuple[str, np.ndarray]]:
    """[(part, (N, 3) world points)] in painter's order (arm first, fingers last)."""
    s = look.scale
    a = np.array([pose.ax, pose.ay])
    a = a / (np.linalg.norm(a) + 1e-9)
    b = np.array([-a[1], a[0]])
    tip = np.array([pose.x, pose.y])
    spread = 0.15 + 0.35 * pose.grip

    def W(ab: np.ndarray) -> np.ndarray:  # local (a, b) -> board plane
        return tip + np.outer(ab[:, 0], a) + np.outer(ab[:, 1], b)

    def Z(ab: np.ndarray, base: float) -> np.ndarray:
        return pose.z + base + 0.22 * np.maximum(ab[:, 0] - 2.6 * s, 0)

    parts: list[tuple[str, np.ndarray]] = []
    # forearm (and sleeve) to well beyond the board edge
    arm = np.array([[3.3 * s, 0.8 * s], [14.0, 1.2 * s], [14.0, -1.2 * s], [3.3 * s, -0.8 * s]])
    parts.append(("arm", np.column_stack([W(arm), Z(arm, 0.7)])))
    if not look.bare_arm:
        st = look.sleeve_start * s
        sw = look.sleeve_w * s
        sl = np.array([[st, sw * 0.95], [16.0, sw * 1.15], [16.0, -sw * 1.15], [st, -sw * 0.95]])
        parts.append(("sleeve", np.column_stack([W(sl), Z(sl, 0.85)])))
    palm = _ellipse(np.array([2.45 * s, 0.0]), 1.25 * s, 1.12 * s)
    parts.append(("palm", np.column_stack([W(palm), Z(palm, 0.6)])))
    # thumb from the palm's right side toward the tip
    th = _capsule(np.array([2.3 * s, -1.0 * s]), np.array([0.3 * s, -0.35 * s - spread * 0.4]), 0.52 * s)
    parts.append(("thumb", np.column_stack([W(th), Z(th, 0.2)])))
    ends = [(-0.05, -0.05), (0.1, 0.3), (0.45, 0.62), (0.9, 0.85)]
    starts = [(1.5, -0.45), (1.45, -0.05), (1.5, 0.35), (1.7, 0.72)]
    widths = [0.44, 0.46, 0.42, 0.36]
    for k, ((ea, eb), (sa, sb), w) in enumerate(zip(ends, starts, widths)):
        e = np.array([ea * s + 0.3 * pose.grip * k * 0.3, (eb + spread * (k - 1) * 0.3) * s])
        f = _capsule(np.array([sa * s, sb * s]), e, w * s)
        parts.append((f"finger{k}", np.column_stack([W(f), Z(f, 0.15)])))
    return parts


def hand_bbox_plane(pose: HandPose, look: HandLook) -> np.ndarray:
    pts = np.vstack([p[:, :2] for _, p in hand_parts(pose, look)])
    return np.array([pts.min(axis=0), pts.max(axis=0)])


def render_hand(img: np.ndarray, cam: Camera, pose: HandPose, look: HandLook, light: np.ndarray,
                mask_out: np.ndarray) -> None:
    """Draw the hand/arm into img (in place) and its coverage into mask_out (uint8, 255 = hand)."""
    parts = hand_parts(pose, look)
    H, W = img.shape[:2]
    projected = [(name, cam.project_fast(p)) for name, p in parts]
    allp = np.vstack([p for _, p in projected])
    x0, y0 = np.floor(allp.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(allp.max(axis=0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    roi = img[y0:y1, x0:x1]
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    off = np.array([x0, y0], np.float64)
    skin = np.asarray(look.skin, np.float64)
    for name, p in projected:
        poly = np.round((p - off) * 16).astype(np.int32)
        if name == "sleeve":
            col = np.asarray(look.sleeve)
        elif name.startswith("finger") or name == "thumb":
            col = skin * 1.04
        elif name == "arm":
            col = skin * 0.93
        else:
            col = skin
        edge = tuple(float(c) for c in np.clip(col * 0.62, 0, 255))
        cv2.fillPoly(roi, [poly], tuple(float(c) for c in np.clip(col, 0, 255)), cv2.LINE_AA, 4)
        if name.startswith("finger") or name == "thumb":
            cv2.polylines(roi, [poly], True, edge, 1, cv2.LINE_AA, 4)
        if name == "sleeve" and look.cuff:
            cv2.polylines(roi, [poly[:2]], False, edge, 2, cv2.LINE_AA, 4)
        cv2.fillPoly(m, [poly], 255, cv2.LINE_8, 4)
    # nails: small pale ellipses near the fingertips (seen when the hand is pinching from above)
    tipw = cam.project_fast(np.array([[pose.x, pose.y, pose.z], [pose.x + 1.0, pose.y, pose.z]]))
    unit = float(np.linalg.norm(tipw[1] - tipw[0]))  # px per point spacing near the hand
    nail_col = tuple(float(c) for c in np.clip(skin * np.array([1.08, 1.1, 1.12]) + 18, 0, 255))
    for name, p in projected:
        if name.startswith("finger") or name == "thumb":
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


def shadow_polygons(cam: Camera, pose: HandPose, look: HandLook, light: np.ndarray) -> list[np.ndarray]:
    """Image polygons of the hand's shadow on the board plane (cast along `light`, unit 3-vector)."""
    lz = max(float(light[2]), 0.25)
    out = []
    for _, p in hand_parts(pose, look):
        q = p[:, :2] - np.outer(p[:, 2] / lz, light[:2])
        out.append(cam.project_fast(q))
    return out
