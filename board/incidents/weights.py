"""The evidence model's fitted weights (weigh.EvidenceModel), written by bench/fit_evidence.py fit.

Do not edit by hand: refit. Intercepts per kind, then one weight per weigh.FEATURES entry;
`accuse` chosen on the TUNING renders (fit_evidence.choose_accuse), `note` the score from which
a candidate the rules set aside is shown as a review note.
"""

EVIDENCE_MODEL = {'intercepts': {'touch_move_other': -4.22198541412731,
                'retouch': -1.9971893767841433,
                'knocked': 1.7250551247362318},
 'weights': [0.17869177724726185,
             0.5422822630491048,
             1.2779314559176438,
             -0.5829048218067571,
             -0.0439791964837192,
             -0.26214763326742513,
             -0.8753137991675439,
             4.20069655455918],
 'accuse': 0.42,
 'note': 0.5,
 'fitted_on': "80 TUNING renders, 452 candidates (136 true); accuse: the highest keeping held-out families' "
              "recall within 0.01 of the rules'"}
