"""Teaching a piece set from one photo (`xqtrack calibrate pieces`): how well other photos of
the set read afterwards, and how long teaching takes.

    .venv/bin/python bench/teach_bench.py [--sets 6] [--photos 3] [--real]

Sets never seen: discs drawn in typefaces the model was never trained on (training/set_photos.py:
Noto CJK and the older Arphic faces; install fonts-noto-cjk, fonts-arphic-gkai00mp/-bkai00mp)
with random discs, inks and strokes, laid on boards rendered by the rig. For each set, one
photo of the start position teaches it (camera, light and look of its own); other photos of
the set (other cameras, lights, board looks, positions from games played at random) are read
plainly, with the embedding correction alone, and with the full teaching (the reader the
held-apart check keeps). `--real` adds the real photos of tests/data/real_boards whose set has
two photos or more (teach on one, read the others). One thread for everything.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

LOOKS = ("wood", "mat", "plastic", "cloth", "paper")


def _score(read: str, truth: str) -> tuple[int, int]:
    pairs = [(a, b) for a, b in zip(read, truth) if b != "?"]
    return sum(a == b for a, b in pairs), len(pairs)


class Tally:
    def __init__(self) -> None:
        self.right = self.counted = self.perfect = self.boards = 0
        self.confusion: dict[tuple[str, str], int] = {}

    def add(self, read: str, truth: str) -> None:
        r, c = _score(read, truth)
        self.right += r
        self.counted += c
        self.perfect += int(r == c)
        self.boards += 1
        for a, b in zip(read, truth):
            if b != "?" and a != b:
                self.confusion[(b, a)] = self.confusion.get((b, a), 0) + 1

    def line(self) -> str:
        if not self.counted:
            return "-"
        top = sorted(self.confusion.items(), key=lambda kv: -kv[1])[:4]
        conf = ", ".join(f"{t}->{r}: {n}" for (t, r), n in top)
        return (f"{self.right / self.counted * 100:6.2f} % of points ({self.counted - self.right} wrong), "
                f"perfect {self.perfect}/{self.boards}" + (f"; {conf}" if conf else ""))


def _read(img: np.ndarray, profile, model: str | None = None) -> str:
    from vision.reader import read_photo
    return read_photo(img, model, profile=profile).observation.board_string()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", type=int, default=6, help="synthetic sets never seen")
    ap.add_argument("--photos", type=int, default=3, help="other photos read per set")
    ap.add_argument("--seed", type=int, default=900)
    ap.add_argument("--real", action="store_true", help="also the real photos (sets with 2+ photos)")
    ap.add_argument("--model", default=None, help="piece model .onnx (default: the shipped one)")
    ap.add_argument("--two", action="store_true",
                    help="also teach from two photos (the start position and the first other photo, a middle "
                         "game) and read the rest: every reader is scored on the photos after the first other one")
    ap.add_argument("--plain-only", action="store_true",
                    help="read the other photos plainly only (no teaching): compares models on sets never seen")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    from training import set_photos as S
    from calibration.piece_profile import profile_from_photo

    fonts = S.held_out_fonts()
    if not fonts:
        print("no held-out typeface installed (fonts-noto-cjk, fonts-arphic-gkai00mp): no synthetic sets")
    readers = ("plain", "embedding correction", "taught") + (("taught from two photos",) if a.two else ())
    rows = {k: Tally() for k in readers}
    kept: dict[str, int] = {}
    kept2: dict[str, int] = {}
    times: list[float] = []
    times2: list[float] = []
    cases = []
    for k in range(a.sets if fonts else 0):
        rng = np.random.default_rng([a.seed, k])
        style = S.draw_set_style(rng, fonts)
        pieces = S.PhysicalSet(style, seed=a.seed * 1000 + k)
        seeds = [a.seed * 100 + k * 10 + j for j in range(a.photos + 1)]
        teach_img, _ = S.set_photo(pieces, S.START_BOARD, seeds[0], look=LOOKS[k % len(LOOKS)])
        others = []
        for j, sd in enumerate(seeds[1:]):
            board = S.random_game_board(sd)
            img, _ = S.set_photo(pieces, board, sd, look=LOOKS[(k + j + 1) % len(LOOKS)])
            others.append((img, board))
        cases.append((f"set {k} ({Path(style.font).stem}, {style.disc} disc, {style.stroke}, "
                      f"inks {style.red_ink}/{style.black_ink})", teach_img, S.START_BOARD, others))
    if a.real:
        from training.board_eval import load_real_boards
        boards = load_real_boards()
        by_set: dict[str, list] = {}
        for b in boards:
            by_set.setdefault(b.set_name, []).append(b)
        for name, bs in by_set.items():
            if len(bs) < 2:
                continue
            imgs = [np.asarray(cv2.imread(str(b.image), cv2.IMREAD_COLOR)) for b in bs]
            for i, b in enumerate(bs):
                cases.append((f"real {name}, taught on {b.image.name}", imgs[i], b.truth,
                              [(imgs[j], o.truth) for j, o in enumerate(bs) if j != i]))
    for title, teach_img, truth, others in cases:
        if a.plain_only:
            per_plain = Tally()
            for img, board in others + [(teach_img, truth)]:
                read = _read(img, None, a.model)
                rows["plain"].add(read, board)
                per_plain.add(read, board)
            print(f"{title}: plain {per_plain.line()}", flush=True)
            continue
        t0 = time.process_time()
        cal = profile_from_photo(teach_img, truth, name=title, model_path=a.model)
        times.append(time.process_time() - t0)
        lda = profile_from_photo(teach_img, truth, name=title, teach=False, model_path=a.model).profile
        method = cal.profile.method
        kept[method] = kept.get(method, 0) + 1
        profiles = [("plain", None), ("embedding correction", lda), ("taught", cal.profile)]
        scored = others
        two_note = ""
        if a.two:
            if len(others) < 2:
                continue
            (img2, board2), scored = others[0], others[1:]
            t0 = time.process_time()
            cal2 = profile_from_photo(teach_img, truth, name=title, model_path=a.model, more=[(img2, board2)])
            times2.append(time.process_time() - t0)
            profiles.append(("taught from two photos", cal2.profile))
            kept2[cal2.profile.method] = kept2.get(cal2.profile.method, 0) + 1
            two_note = (f"; two photos: kept {cal2.profile.method} in {times2[-1]:.1f} s (held-apart errors "
                        f"{cal2.profile.teach_report.get('held_apart_errors')})")
        per = {k: Tally() for k in rows}
        for img, board in scored:
            for key, prof in profiles:
                read = _read(img, prof, a.model)
                rows[key].add(read, board)
                per[key].add(read, board)
        rep = cal.profile.teach_report
        print(f"{title}: kept {method} in {times[-1]:.1f} s CPU (held-apart errors {rep.get('held_apart_errors')})"
              f"{two_note}; plain {per['plain'].right}/{per['plain'].counted}, correction "
              f"{per['embedding correction'].right}, taught {per['taught'].right}"
              + (f", two photos {per['taught from two photos'].right}" if a.two else ""), flush=True)
    print("\nother photos of each set, read:")
    for k, t in rows.items():
        print(f"  {k:<22s} {t.line()}")
    if times:
        print(f"teaching time (CPU, one thread): median {np.median(times):.1f} s, max {max(times):.1f} s; "
              f"kept: {kept}")
    if times2:
        print(f"teaching from two photos (CPU, one thread): median {np.median(times2):.1f} s, max {max(times2):.1f} s; "
              f"kept: {kept2}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
