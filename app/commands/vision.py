"""Sub-commands of `xqtrack` owned by the vision part: `xqtrack read IMAGE [--json]`."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from app.commands.rules import byte_size   # the one parser of --max-bytes

if TYPE_CHECKING:
    import numpy as np

# The photo limit, as `--help` shows it (rules.bounded_read.PHOTO_MAX_BYTES; a test keeps the two
# equal): written out so that registering the command does not import the rules package.
PHOTO_LIMIT_TEXT = "64M"


def load_photo(path: str, max_bytes: int | None = None) -> "np.ndarray":
    """The photo at `path` as a BGR image, read through `rules.bounded_read` and decoded in memory.

    Why not cv2.imread: it says nothing useful about a directory, a missing file or a device, and
    the bytes must be read with a limit (a path may name /dev/zero or an endless FIFO). Each
    failure is one line naming the path: no such file, a directory, over `max_bytes` (and how to
    raise it), empty, or not an image OpenCV can decode. `max_bytes` None: the photo limit."""
    import cv2
    import numpy as np

    from rules.bounded_read import PHOTO_MAX_BYTES, format_size, read_file_bounded

    try:
        data = read_file_bounded(path, PHOTO_MAX_BYTES if max_bytes is None else max_bytes, what="photo")
    except FileNotFoundError:
        raise FileNotFoundError(f"no such image file: {path}") from None
    except IsADirectoryError:
        raise IsADirectoryError(f"{path}: is a directory, not an image file") from None
    except OSError as exc:
        raise OSError(f"{path}: cannot read the image file: {exc.strerror or exc}") from None
    if not data:
        raise ValueError(f"{path}: the file is empty, not an image")
    _check_pixel_count(path, data)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ValueError(f"{path}: not an image OpenCV can decode ({format_size(len(data))} of something else)")
    return image


# Most pixels a photo may decode to: a 50-megapixel phone photo fits; a small PNG that declares
# 20000x20000 (2.4 GB once decoded) does not.
PHOTO_MAX_PIXELS = 120_000_000


def _check_pixel_count(path: str, data: bytes) -> None:
    """Refuse an image whose header declares more than PHOTO_MAX_PIXELS, before it is decoded.

    Why: the byte limit does not bound the decoded size (a few hundred KB of PNG can declare a
    gigapixel). Pillow reads only the header here; a header it cannot read is left to OpenCV."""
    import io
    import warnings

    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as im:
                width, height = im.size
    except Image.DecompressionBombError:
        raise ValueError(f"{path}: the image declares far more pixels than the "
                         f"{PHOTO_MAX_PIXELS // 1_000_000} megapixels a photo may have") from None
    except Exception:   # not a format Pillow knows: OpenCV's decoder and its own limit decide
        return
    if width * height > PHOTO_MAX_PIXELS:
        raise ValueError(f"{path}: the image declares {width}x{height} pixels, more than the "
                         f"{PHOTO_MAX_PIXELS // 1_000_000} megapixels a photo may have")


def _read(args: argparse.Namespace) -> int:
    import numpy as np

    from vision.locate import BoardNotFoundError
    from vision.reader import ColourlessImageError, read_photo
    from vision.observation import board_fen

    path = args.image
    image = load_photo(path, args.max_bytes)
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
    p.add_argument("--max-bytes", type=byte_size, default=None, metavar="BYTES",
                   help=f"read at most this much of the photo file (default {PHOTO_LIMIT_TEXT}; "
                        "K, M, G accepted): a larger file, or an endless device or pipe, is refused")
    p.set_defaults(func=_read)
