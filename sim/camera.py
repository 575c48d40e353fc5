"""Pinhole camera with lens distortion looking at the board plane.

Why a real 3-D camera rather than a bare homography: pieces are cylinders with height and hands
float above the board, so their images (disc sides, hand parallax, shadows) need a camera that
projects points off the plane. World frame: x = file, y = rank (point spacings), z up, board
plane z = 0. Camera frame is OpenCV's (x right, y down, z forward).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class Camera:
    K: np.ndarray          # 3x3 intrinsics
    dist: np.ndarray       # (5,) OpenCV k1 k2 p1 p2 k3
    R: np.ndarray          # 3x3 world -> camera rotation
    t: np.ndarray          # (3,) world -> camera translation
    width: int
    height: int
    tilt_deg: float = 0.0
    azimuth_deg: float = 0.0
    roll_deg: float = 0.0

    @property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.R)[0]

    @property
    def centre(self) -> np.ndarray:
        """Camera position in world coordinates."""
        return -self.R.T @ self.t

    def project(self, pts: np.ndarray) -> np.ndarray:
        """World points (N, 3) or board-plane points (N, 2) -> distorted image pixels (N, 2)."""
        p = np.asarray(pts, dtype=np.float64).reshape(-1, pts.shape[-1])
        if p.shape[1] == 2:
            p = np.hstack([p, np.zeros((len(p), 1))])
        if len(p) == 0:
            return np.zeros((0, 2))
        img, _ = cv2.projectPoints(p, self.rvec, self.t.astype(np.float64), self.K, self.dist)
        return img.reshape(-1, 2)

    def project_fast(self, pts: np.ndarray) -> np.ndarray:
        """Same as project, in numpy (no per-call OpenCV overhead); for many small calls."""
        p = np.asarray(pts, dtype=np.float64)
        if p.shape[-1] == 2:
            p = np.concatenate([p, np.zeros(p.shape[:-1] + (1,))], axis=-1)
        c = p @ self.R.T + self.t
        z = np.maximum(c[..., 2:3], 1e-3)
        xn = c[..., :2] / z
        # Far outside the view the distortion polynomial folds back into the image: clamp the
        # radius (points out there stay out of the frame, in the right direction).
        r = np.sqrt((xn ** 2).sum(axis=-1, keepdims=True))
        lim = self.radius_limit
        xn = xn * np.minimum(1.0, lim / np.maximum(r, 1e-12))
        k1, k2, p1, p2, k3 = self.dist
        x, y = xn[..., 0], xn[..., 1]
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        u = self.K[0, 0] * xd + self.K[0, 2]
        v = self.K[1, 1] * yd + self.K[1, 2]
        return np.stack([u, v], axis=-1)

    @property
    def radius_limit(self) -> float:
        """Normalised radius beyond which projections are clamped: 1.3x the frame corner."""
        cx = max(self.K[0, 2], self.width - 1 - self.K[0, 2]) / self.K[0, 0]
        cy = max(self.K[1, 2], self.height - 1 - self.K[1, 2]) / self.K[1, 1]
        return 1.3 * float(np.hypot(cx, cy))

    def depth(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, dtype=np.float64)
        if p.shape[-1] == 2:
            p = np.concatenate([p, np.zeros(p.shape[:-1] + (1,))], axis=-1)
        return (p @ self.R.T + self.t)[..., 2]

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """Exact pinhole (undistorted) homography of the plane at height z: (x, y, 1) -> pixels."""
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.t + z * self.R[:, 2]])
        H = self.K @ M
        return H / H[2, 2]

    def has_distortion(self) -> bool:
        return bool(np.any(np.abs(self.dist) > 1e-9))

    def undistorted_normalised_grid(self, step: int = 8) -> np.ndarray:
        """Normalised undistorted coordinates (H, W, 2) of every output pixel (coarse grid + resize)."""
        W, H = self.width, self.height
        if not self.has_distortion():
            xs = (np.arange(W) - self.K[0, 2]) / self.K[0, 0]
            ys = (np.arange(H) - self.K[1, 2]) / self.K[1, 1]
            gx, gy = np.meshgrid(xs, ys)
            return np.stack([gx, gy], axis=-1).astype(np.float32)
        gw, gh = W // step + 2, H // step + 2
        xs = np.arange(gw) * step
        ys = np.arange(gh) * step
        gx, gy = np.meshgrid(xs, ys)
        pts = np.stack([gx.ravel(), gy.ravel()], axis=-1).astype(np.float64).reshape(-1, 1, 2)
        crit = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
        und = cv2.undistortPoints(pts, self.K, self.dist, None, None, None, crit).reshape(gh, gw, 2)
        # bilinear resize of the coarse grid: sample positions x/step exactly
        mx = np.arange(W, dtype=np.float32) / step
        my = np.arange(H, dtype=np.float32) / step
        mxx, myy = np.meshgrid(mx, my)
        out = cv2.remap(und.astype(np.float32), mxx, myy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return out

    def to_dict(self) -> dict:
        return {
            "K": np.round(self.K, 6).tolist(), "dist": np.round(self.dist, 8).tolist(),
            "rvec": np.round(self.rvec.ravel(), 8).tolist(), "tvec": np.round(self.t, 8).tolist(),
            "width": self.width, "height": self.height, "tilt_deg": round(self.tilt_deg, 3),
            "azimuth_deg": round(self.azimuth_deg, 3), "roll_deg": round(self.roll_deg, 3),
            "homography_pinhole": np.round(self.plane_homography(0.0), 10).tolist(),
        }


def look_at_camera(target: np.ndarray, tilt_deg: float, azimuth_deg: float, roll_deg: float,
                   distance: float, fov_deg: float, width: int, height: int,
                   dist: np.ndarray | None = None) -> Camera:
    """Camera at `distance` from `target`, tilted from vertical, seen from `azimuth` (0 = red's side)."""
    tilt, az, roll = map(math.radians, (tilt_deg, azimuth_deg, roll_deg))
    direction = np.array([math.sin(tilt) * math.sin(az), -math.sin(tilt) * math.cos(az), math.cos(tilt)])
    C = np.asarray(target, dtype=np.float64) + distance * direction
    f = -direction
    h = np.array([-math.sin(az), math.cos(az), 0.0])
    y = -(h - (h @ f) * f)
    y /= np.linalg.norm(y)
    x = np.cross(y, f)
    c, s = math.cos(roll), math.sin(roll)
    x, y = c * x + s * y, -s * x + c * y
    R = np.vstack([x, y, f])
    t = -R @ C
    fx = (width / 2) / math.tan(math.radians(fov_deg) / 2)
    K = np.array([[fx, 0, (width - 1) / 2], [0, fx, (height - 1) / 2], [0, 0, 1]], dtype=np.float64)
    d = np.zeros(5) if dist is None else np.asarray(dist, dtype=np.float64)
    return Camera(K=K, dist=d, R=R, t=t, width=width, height=height, tilt_deg=tilt_deg,
                  azimuth_deg=azimuth_deg, roll_deg=roll_deg)


BOARD_OUTLINE = np.array([[-0.9, -0.9], [8.9, -0.9], [8.9, 9.9], [-0.9, 9.9]])
LATTICE_CORNERS = np.array([[0, 9], [8, 9], [8, 0], [0, 0]], dtype=np.float64)  # a9 i9 i0 a0


def fit_camera(target: np.ndarray, tilt_deg: float, azimuth_deg: float, roll_deg: float, fov_deg: float,
               fill: float, width: int, height: int, dist: np.ndarray | None = None) -> Camera:
    """Choose the distance so the board outline spans `fill` of the frame (limiting dimension)."""
    lo, hi = 2.0, 200.0
    cam = None
    outline = np.array([[x, y] for x, y in BOARD_OUTLINE] +
                       [[4, -0.9], [4, 9.9], [-0.9, 4.5], [8.9, 4.5]], dtype=np.float64)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        cam = look_at_camera(target, tilt_deg, azimuth_deg, roll_deg, mid, fov_deg, width, height, None)
        p = cam.project_fast(outline)
        span = max((p[:, 0].max() - p[:, 0].min()) / width, (p[:, 1].max() - p[:, 1].min()) / height)
        if span > fill:
            lo = mid
        else:
            hi = mid
    cam = look_at_camera(target, tilt_deg, azimuth_deg, roll_deg, hi, fov_deg, width, height, dist)
    return cam


def red_side_of(cam: Camera) -> str:
    """Image edge nearest red's back rank: compare the projected rank-0 centre with the lattice centre."""
    p = cam.project_fast(np.array([[4.0, 0.0], [4.0, 4.5]]))
    dx, dy = p[0] - p[1]
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "bottom" if dy > 0 else "top"


def lattice_points() -> np.ndarray:
    """(90, 2) board-plane coordinates in point-index order."""
    idx = np.arange(90)
    return np.stack([idx % 9, idx // 9], axis=-1).astype(np.float64)


def pose_truth(cam: Camera) -> dict:
    """Corners, points, best-fit homography and camera dict for the truth records."""
    lat = lattice_points()
    pts = cam.project(lat)
    corners = cam.project(LATTICE_CORNERS)
    if cam.has_distortion():
        H, _ = cv2.findHomography(lat, pts, 0)
    else:
        H = cam.plane_homography(0.0)
    H = H / H[2, 2]
    proj = cv2.perspectiveTransform(lat.reshape(-1, 1, 2), H).reshape(-1, 2)
    camd = cam.to_dict()
    camd["homography_fit_max_px"] = round(float(np.max(np.linalg.norm(proj - pts, axis=1))), 4)
    return {"points": pts, "corners": corners, "homography": H, "camera": camd, "red_side": red_side_of(cam)}
