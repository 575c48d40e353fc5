// The set-up check: the latest camera frame the recorder wrote (setup.jpg + setup.json), with
// the lattice it found and each point's reading drawn over it, refreshed once a second.
(function () {
  "use strict";
  var L = window.XQ_LABELS || {};
  var CHARS = { K: "帅", A: "仕", B: "相", N: "马", R: "车", C: "炮", P: "兵",
                k: "将", a: "士", b: "象", n: "马", r: "车", c: "炮", p: "卒" };
  var shown = null;
  window.__xq = { setup: null };
  function el(id) { return document.getElementById(id); }
  function label(key) { if (window.XQ) return window.XQ.label(key); var l = L[key]; return l ? l[0] + " " + l[1] : key; }
  function esc(s) { var d = document.createElement("span"); d.textContent = s; return d.innerHTML; }

  function lattice(s) {
    var svg = el("lattice");
    svg.setAttribute("viewBox", "0 0 " + s.width + " " + s.height);
    svg.setAttribute("preserveAspectRatio", "none");
    if (!s.points || !s.points.length) { svg.innerHTML = ""; return; }
    var P = s.points, parts = [], i, f, r;
    var sw = Math.max(1.5, s.width / 500);
    parts.push("<g class='lattice' stroke='#00e5ff' stroke-width='" + sw + "' fill='none' opacity='0.85'>");
    for (r = 0; r < 10; r++) {
      var row = [];
      for (f = 0; f < 9; f++) row.push(P[r * 9 + f].x + "," + P[r * 9 + f].y);
      parts.push("<polyline points='" + row.join(" ") + "'/>");
    }
    for (f = 0; f < 9; f++) {
      var col = [];
      for (r = 0; r < 10; r++) col.push(P[r * 9 + f].x + "," + P[r * 9 + f].y);
      parts.push("<polyline points='" + col.join(" ") + "'/>");
    }
    parts.push("</g><g class='readings' font-family=\"'XQ UI',sans-serif\" text-anchor='middle' dominant-baseline='central'>");
    var rad = Math.max(5, s.spacing_px * 0.28);
    for (i = 0; i < P.length; i++) {
      var p = P[i];
      if (p.read === "." && p.expected === ".") continue;
      var bad = p.read !== p.expected && !p.occluded;
      var colour = p.read === "." ? "#888" : (p.read === p.read.toUpperCase() ? "#ff3b3b" : "#111");
      parts.push("<g class='pt" + (bad ? " differs" : "") + "' data-point='" + p.name + "' data-read='" + p.read + "'>" +
        "<circle cx='" + p.x + "' cy='" + p.y + "' r='" + rad + "' fill='rgba(255,255,255,0.8)' stroke='" +
        (bad ? "#ff1744" : "#00c853") + "' stroke-width='" + (bad ? sw * 2 : sw) + "'/>" +
        (p.read !== "." ? "<text x='" + p.x + "' y='" + p.y + "' font-size='" + rad * 1.3 + "' fill='" + colour + "'>" +
          CHARS[p.read] + "</text>" : "") + "</g>");
    }
    parts.push("</g>");
    svg.innerHTML = parts.join("");
  }

  function show(s) {
    window.__xq.setup = s;
    document.body.dataset.frame = s.frame;
    el("no-frame").style.display = "none";
    if (shown !== s.frame) { el("shot").src = "setup.jpg?frame=" + s.frame; shown = s.frame; }
    lattice(s);
    var lock = el("lock");
    var conf = s.pose ? s.pose.confidence : null;
    lock.className = "sync " + (s.pose ? (conf >= 0.5 ? "in_sync" : "reading") : "out_of_sync");
    lock.textContent = s.pose ? label("confidence") + " " + Math.round(conf * 100) + "%" : label("no_board");
    el("confidence").textContent = conf === null ? "–" : (conf * 100).toFixed(0) + "%";
    el("red-side").textContent = s.pose ? (L[s.pose.red_side] ? label(s.pose.red_side) : s.pose.red_side) : "–";
    el("frame-no").textContent = s.frame + " (t=" + s.t.toFixed(1) + " s)";
    el("expected").textContent = s.expected_fen || "–";
    el("reads").textContent = s.pose ? (s.reads_fen + (s.differs.length ? " — " + label("differs") + ": " +
      s.differs.join(", ") : " — " + label("matches"))) : "–";
    var rb = el("reads-board");
    if (s.reads_fen) {
      var src = "board.svg?fen=" + encodeURIComponent(s.reads_fen) + "&marks=" + encodeURIComponent(s.differs.join(","));
      if (rb.getAttribute("src") !== src) rb.setAttribute("src", src);
      rb.hidden = false;
    } else {
      rb.hidden = true;
    }
    var hints = s.hints.map(function (h) { return "<li class='bad'>" + esc(label(h)) + "</li>"; });
    if (!hints.length) hints.push("<li class='ok'>" + esc(label("all_good")) + "</li>");
    el("hints").innerHTML = hints.join("");
  }

  function poll() {
    fetch("setup.json", { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; })
      .then(function (s) { if (s) show(s); }).catch(function () {})
      .then(function () { setTimeout(poll, 1000); });
  }
  poll();
})();
