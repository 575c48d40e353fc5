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
    from vision.reader import ColourlessImageError, read_photo
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
    profile = None
    if args.set:
        from calibration.piece_profile import load_named_profile
        profile = load_named_profile(args.set)
    try:
        reading = read_photo(image, model_path=args.model, profile=profile, camera=camera,
                             game_position=not args.any_placement)
    except BoardNotFoundError as exc:
        raise BoardNotFoundError(f"{path}: {exc}") from None
    except ColourlessImageError as exc:
        raise ColourlessImageError(f"{path}: {exc}") from None
    except ValueError as exc:  # a profile fitted for another model
        raise ValueError(f"--set {args.set!r}: {exc}") from None
    obs = reading.observation
    assert obs.pose is not None  # a photo read always has its board (or raised above)
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
            "unsure": [] if reading.joint is None else
                      [f"{'abcdefghi'[i % 9]}{i // 9}" for i in np.flatnonzero(reading.joint.unsure)],
            "set": args.set,
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
                    "red_side, per-point confidence (point-index order, a0 first) and the points read unsure. "
                    "The board is read as a whole: never more pieces of a kind than a set holds, and generals, "
                    "advisors, elephants and soldiers only where a game can put them (--any-placement lifts that).")
    p.add_argument("image", help="photo file (anything OpenCV reads: jpg, png, ...)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the FEN")
    p.add_argument("--model", default=None, help="piece classifier .onnx (default: the shipped model)")
    p.add_argument("--camera", default=None,
                   help="camera calibration JSON (`xqtrack calibrate camera`): undistort first; "
                        "corners then refer to the undistorted image")
    p.add_argument("--set", default=None, metavar="NAME",
                   help="read with the piece set taught by `xqtrack calibrate pieces PHOTO --name NAME`")
    p.add_argument("--any-placement", action="store_true",
                   help="the photo need not show a game position (pieces may stand anywhere; set counts still hold)")
    p.set_defaults(func=_read)
