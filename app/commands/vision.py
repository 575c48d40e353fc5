"""Sub-commands of `xqtrack` owned by the vision part: `xqtrack read IMAGE [--json]`."""
from __future__ import annotations

import argparse
import json
import os
import sys


def _read(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from vision.locate import BoardNotFoundError
    from vision.reader import read_image
    from vision.observation import board_fen

    path = args.image
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such image file: {path}")
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: not an image OpenCV can decode")
    camera = None
    if args.camera:
        from calibration.camera import CameraIntrinsics
        camera = CameraIntrinsics.load(args.camera)
    try:
        obs = read_image(image, model_path=args.model, camera=camera)
    except BoardNotFoundError as exc:
        raise BoardNotFoundError(f"{path}: {exc}") from None
    board = obs.board_string()
    fen = board_fen(board)
    if args.json:
        conf = np.max(obs.probs, axis=1)
        out = {
            "fen": fen,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in obs.pose.corners],
            "red_side": obs.pose.red_side,
            "confidence": [round(float(c), 4) for c in conf],
            "board": board,
            "board_confidence": round(float(obs.pose.confidence), 4),
        }
        json.dump(out, sys.stdout)
        sys.stdout.write("\n")
    else:
        print(fen)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `read`."""
    p = subparsers.add_parser(
        "read", help="read the position on a board in one photo",
        description="Find the board in IMAGE (no markers needed) and print the position as a FEN board part "
                    "(rank 9 first, red upper case). With --json: fen, corners (image points of a9, i9, i0, a0), "
                    "red_side and per-point confidence (point-index order, a0 first).")
    p.add_argument("image", help="photo file (anything OpenCV reads: jpg, png, ...)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the FEN")
    p.add_argument("--model", default=None, help="piece classifier .onnx (default: the shipped model)")
    p.add_argument("--camera", default=None,
                   help="camera calibration JSON (`xqtrack calibrate camera`): undistort first; "
                        "corners then refer to the undistorted image")
    p.set_defaults(func=_read)
