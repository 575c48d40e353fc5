"""Sub-commands of `xqtrack` owned by the calibration part: `xqtrack calibrate camera ...`."""
from __future__ import annotations

import argparse
import os


def _pattern(text: str) -> tuple[int, int]:
    try:
        a, b = text.lower().split("x")
        cols, rows = int(a), int(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"pattern {text!r}: expected COLSxROWS inner corners, e.g. 9x6") from None
    if cols < 2 or rows < 2:
        raise argparse.ArgumentTypeError(f"pattern {text!r}: needs at least 2x2 inner corners")
    return cols, rows


def _camera(args: argparse.Namespace) -> int:
    import cv2

    from calibration.camera import calibrate

    images, names = [], []
    for path in args.images:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such image file: {path}")
        images.append(cv2.imread(path, cv2.IMREAD_COLOR))
        names.append(path)
    cam = calibrate(images, pattern=args.pattern, square=args.square, names=names)
    out = cam.save(args.out)
    fx, fy, cx, cy = cam.K[0, 0], cam.K[1, 1], cam.K[0, 2], cam.K[1, 2]
    print(f"{out}: {cam.views} views, reprojection error {cam.rms_px:.3f} px, "
          f"fx {fx:.1f} fy {fy:.1f} cx {cx:.1f} cy {cy:.1f}, k1 {cam.dist[0]:+.4f} k2 {cam.dist[1]:+.4f}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `calibrate` (with `calibrate camera`)."""
    cal = subparsers.add_parser("calibrate", help="one-time set-up per camera (optional)",
                                description="One-time set-up files that vision reads at start. None is required.")
    sub = cal.add_subparsers(dest="what", metavar="WHAT")
    cam = sub.add_parser("camera", help="camera intrinsics from photos of a printed checkerboard",
                         description="Lens intrinsics and distortion from several photos of a flat printed "
                                     "checkerboard, taken with the camera and resolution used for games.")
    cam.add_argument("images", nargs="+", help="checkerboard photos (at least 4 where the pattern is found)")
    cam.add_argument("--pattern", type=_pattern, default=(9, 6), help="inner corners COLSxROWS (default 9x6)")
    cam.add_argument("--square", type=float, default=1.0, help="square size (any unit; default 1)")
    cam.add_argument("--out", required=True, help="where to write the calibration JSON")
    cam.set_defaults(func=_camera)

    def _need_what(args: argparse.Namespace) -> int:
        cal.print_help()
        return 2

    cal.set_defaults(func=_need_what)
