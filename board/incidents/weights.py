"""The evidence model's fitted weights (weigh.EvidenceModel), written by bench/fit_evidence.py.

Until a fit is written here the model is neutral: every incident the rules raise stands
(`accuse` 0) and no candidate they set aside becomes a note (`note` 1).
"""

EVIDENCE_MODEL = {
    "intercepts": {"touch_move_other": 0.0, "retouch": 0.0},
    "weights": [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    "accuse": 0.0,
    "note": 1.0,
    "fitted_on": "",
}
