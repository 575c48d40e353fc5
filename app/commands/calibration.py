"""Sub-commands of `xqtrack` owned by the calibration part: `xqtrack calibrate camera|pieces ...`."""
from __future__ import annotations

import argparse


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
    from calibration.camera import calibrate

    from app.commands.vision import load_photo

    images, names = [], []
    for path in args.images:
        images.append(load_photo(path))   # bounded, and one clear line for a bad path
        names.append(path)
    cam = calibrate(images, pattern=args.pattern, square=args.square, names=names)
    out = cam.save(args.out)
    fx, fy, cx, cy = cam.K[0, 0], cam.K[1, 1], cam.K[0, 2], cam.K[1, 2]
    print(f"{out}: {cam.views} views, reprojection error {cam.rms_px:.3f} px, "
          f"fx {fx:.1f} fy {fy:.1f} cx {cx:.1f} cy {cy:.1f}, k1 {cam.dist[0]:+.4f} k2 {cam.dist[1]:+.4f}")
    return 0


START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"


def _pieces(args: argparse.Namespace) -> int:
    """`calibrate pieces PHOTO [PHOTO ...] --name NAME [--fen FEN ...]`: learn a piece set from
    one photo (or a few: a start position and a middle game)."""
    from calibration.piece_profile import default_profile_path, profile_from_photo
    from vision.locate import BoardNotFoundError
    from vision.reader import ColourlessImageError

    from app.commands.vision import load_photo

    photos = list(args.photo)
    fens = list(args.fen or [])
    if len(fens) > len(photos):
        raise ValueError(f"--fen given {len(fens)} times for {len(photos)} photo(s): one position per photo, in "
                         "the photos' order")
    fens += [START_FEN] * (len(photos) - len(fens))
    images = [load_photo(p) for p in photos]   # bounded, and one clear line for a bad path
    boards = [_fen_points(f) for f in fens]
    out = default_profile_path(args.name)  # checks the name before any work
    path = photos[0] if len(photos) == 1 else " and ".join(photos)
    try:
        cal = profile_from_photo(images[0], boards[0], name=args.name, model_path=args.model,
                                 more=list(zip(images[1:], boards[1:])))
    except BoardNotFoundError as exc:
        raise BoardNotFoundError(f"{_named(exc, photos)}") from None
    except ColourlessImageError as exc:
        raise ColourlessImageError(f"{_named(exc, photos)}") from None
    except ValueError as exc:  # the photo does not show the stated position
        raise ValueError(f"{_named(exc, photos)}") from None
    cal.profile.save(out)
    rep = cal.profile.teach_report
    held = rep.get("held_apart_errors", {})
    kept = {"taught block": "the network's last block retrained on the set",
            "taught block, own occupancy": "the network's last block retrained on the set, also for which points "
                                           "hold a disc (the model alone took some of its discs for empty points)",
            "discriminant": "a correction of the model's reading", "model": "the model as shipped (nothing read "
            "the photo's held-apart points better)"}.get(cal.profile.method, cal.profile.method)
    shift = cal.lattice_shift
    print(f"{out}: piece set {args.name!r} from {path}: the stated position read {cal.plain_accuracy:.1%} "
          f"of points plainly, {cal.profile_accuracy:.1%} with the set taught"
          f"{' (board turned: red at the other end)' if cal.turned else ''}"
          f"{f' (lattice moved {shift[0]:+d} files, {shift[1]:+d} ranks onto the position)' if shift != (0, 0) else ''}")
    if held:
        n = rep.get("held_apart_views", 0)
        apart = ("views of points held apart while teaching" if cal.photos == 1 else
                 f"views of points of the {cal.photos} photos held apart while teaching")
        print(f"kept: {kept}; on {n} {apart}, wrong: model "
              f"{held.get('model')}, correction {held.get('discriminant')}, retrained block "
              f"{held.get('taught block')} ({rep.get('seconds', 0):.0f} s)")
    return 0


def _named(exc: Exception, photos: list[str]) -> str:
    """The error of teaching, led by the file it concerns ("photo K: ..." names it by number)."""
    text = str(exc)
    if len(photos) > 1 and text.startswith("photo "):
        num, _, rest = text[len("photo "):].partition(": ")
        if num.isdigit() and 1 <= int(num) <= len(photos):
            return f"{photos[int(num) - 1]}: {rest}"
    return f"{photos[0]}: {text}"


def _fen_points(fen: str) -> str:
    """FEN (board part, or a whole FEN) -> 90 characters in point-index order; one clear error."""
    from vision.observation import board_from_fen
    return board_from_fen(fen, where="--fen")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `calibrate` (with `calibrate camera`)."""
    cal = subparsers.add_parser("calibrate", help="one-time set-up: camera intrinsics, piece sets (optional)",
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
    pcs = sub.add_parser("pieces", help="teach xqtrack a piece set from a photo of a known position",
                         description="Learn how a piece set looks (its discs, inks, characters, under this light) "
                                     "from one photo of a known position (default: the start position); which end "
                                     "is red's is found from the photo. Saves the set as NAME in the xqtrack home "
                                     "folder ($XQTRACK_HOME or ~/.xqtrack, sets/NAME.json); use it with "
                                     "`xqtrack read IMAGE --set NAME` and `xqtrack record ... --set NAME`.")
    pcs.add_argument("photo", nargs="+", help="photo of the board with the position on it; a second photo (a middle "
                                              "game under another light or camera) helps a set that one photo "
                                              "does not teach well enough")
    pcs.add_argument("--name", required=True, help="name to save the set under (e.g. 'club wooden')")
    pcs.add_argument("--fen", action="append", default=None,
                     help="the position in the photo (default: the start position); once per photo, in order")
    pcs.add_argument("--model", default=None, help="piece classifier .onnx (default: the shipped model)")
    pcs.set_defaults(func=_pieces)

    def _need_what(args: argparse.Namespace) -> int:
        cal.print_help()
        return 2

    cal.set_defaults(func=_need_what)
