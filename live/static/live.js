// The live page and the OBS overlay: one state message per journal change (/events?view=1),
// drawn as it comes; the running clock counts down here between presses.
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var flip = params.get("flip") === "1" || params.get("flip") === "true";
  // Arbiter or not: the server turned any ?token=... into an HttpOnly cookie and a clean URL, so
  // this script never sees the token; session.json says whether this browser holds it.
  var arbiter = false;
  var L = window.XQ_LABELS || {};
  var body = document.body;
  var isOverlay = body.dataset.page === "overlay";
  var layout = params.get("layout");
  if (isOverlay && layout) {
    body.classList.remove("layout-board-clocks");
    body.classList.add("layout-" + layout.replace(/[^a-z-]/g, ""));
  }
  var stripCount = parseInt(params.get("moves") || "8", 10) || 8;
  var xq = window.__xq = { applied: {}, state: null, count: 0 };
  var clockBase = null; // {red_ms, black_ms, running, at: performance.now()}
  // ?status=0 hides the sync pill (on air); ?eval=1 shows the engine's bar (the server sets both
  // classes in the HTML it sends, so the first frame is right; kept here for a page saved elsewhere)
  if (params.get("status") === "0") body.classList.add("no-status");
  if (params.get("eval") === "1") body.classList.add("show-eval");

  function el(id) { return document.getElementById(id); }
  // one language at a time (xq-lang.js: ?lang=zh|en or the browser's); both without it
  function label(key) { if (window.XQ) return window.XQ.label(key); var l = L[key]; return l ? l[0] + " " + l[1] : key; }
  function sideText(s) { return window.XQ ? window.XQ.side(s) : (s || ""); }
  function detailText(inc) { return window.XQ ? window.XQ.detail(inc) : (inc.detail || ""); }
  function wallText(w) { return window.XQ && w ? " · " + window.XQ.time(w) : ""; }
  function reasonText(r) { return window.XQ ? window.XQ.reason(r) : r; }
  function text(s) { var d = document.createElement("span"); d.textContent = s; return d.innerHTML; }

  function fmt(ms) {
    if (ms === null || ms === undefined) return "–:––";
    var s = Math.max(0, Math.ceil(ms / 1000));
    var h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, r = s % 60;
    var mm = h ? (m < 10 ? "0" + m : "" + m) : "" + m;
    return (h ? h + ":" : "") + mm + ":" + (r < 10 ? "0" + r : r);
  }

  function drawClocks() {
    ["red", "black"].forEach(function (side) {
      var box = el("clock-" + side);
      if (!box) return;
      var t = box.querySelector(".time");
      if (!clockBase) { t.textContent = "–:––"; box.classList.remove("running"); return; }
      var ms = clockBase[side + "_ms"];
      var running = clockBase.running === side;
      if (running) ms -= performance.now() - clockBase.at;
      t.textContent = fmt(ms);
      box.dataset.ms = Math.max(0, Math.round(ms));
      box.classList.toggle("running", running);
      box.classList.toggle("low", ms < 60000);
    });
  }

  function drawMoves(st) {
    var table = el("moves");
    if (table) {
      var rows = [];
      for (var i = 0; i < st.plies.length; i += 2) {
        var r = st.plies[i], b = st.plies[i + 1];
        var cell = function (p) {
          if (!p) return "<td></td>";
          var last = p.ply === st.ply ? " last" : "";
          return "<td class='mv" + last + "' data-ply='" + p.ply + "' data-iccs='" + p.iccs + "'>" + text(p.chinese) +
            "<span class='wxf'>" + text(p.wxf) + "</span></td>";
        };
        rows.push("<tr><td class='n'>" + (i / 2 + 1) + ".</td>" + cell(r) + cell(b) + "</tr>");
      }
      table.innerHTML = rows.join("");
      var sc = table.parentNode;
      if (sc) sc.scrollTop = sc.scrollHeight;
      el("no-moves").style.display = st.plies.length ? "none" : "";
    }
    var strip = el("strip");
    if (strip) {
      var from = Math.max(0, st.plies.length - stripCount), parts = [];
      for (var j = from; j < st.plies.length; j++) {
        var p = st.plies[j];
        parts.push("<span class='mv" + (p.ply === st.ply ? " last" : "") + "' data-ply='" + p.ply + "'><span class='n'>" +
          Math.ceil(p.ply / 2) + (p.side === "red" ? "." : "…") + "</span> " + text(p.chinese) + "</span>");
      }
      strip.innerHTML = parts.join("");
    }
  }

  function evidenceLinks(ev) {
    var keys = ["clip", "crop", "before", "during", "after"].filter(function (k) {
      return typeof ev[k] === "string" && /^evidence\/[\w.\-]+$/.test(ev[k]);
    });
    if (!keys.length) return "";
    return "<div class='evidence'>" + keys.map(function (k) {
      return "<a target='_blank' rel='noopener noreferrer' href='" + ev[k] + "'>" + text(label(k)) + "</a>";
    }).join(" · ") + "</div>";
  }

  function drawIncidents(st) {
    var list = el("incidents");
    if (!list) return;
    var items = st.incidents.map(function (inc) {
      var ruling = inc.ruling ? inc.ruling.decision : "pending";
      if (inc.retracted) {   // withdrawn after a correction: shown struck through, nothing to rule on
        return "<li class='retracted' data-id='" + inc.id + "'><span class='kind'><s>#" + inc.id + " " +
          text(label(inc.kind)) + "</s></span> · " + label("ply") + " " + inc.ply + "<br>" + label("retracted") + ": " +
          text(inc.retracted.reason || "") + "</li>";
      }
      // a ruling stands: the buttons revise it (naming its revision), each a second click to confirm
      var rev = inc.ruling ? " data-revises='" + (inc.ruling.revision || 1) + "'" : "";
      var pre = inc.ruling ? label("revise") + ": " : "";
      var buttons = arbiter ?
        "<br><button data-id='" + inc.id + "' data-decision='uphold'" + rev + ">" + pre + label("uphold") + "</button>" +
        "<button data-id='" + inc.id + "' data-decision='dismiss'" + rev + ">" + pre + label("dismiss") + "</button>" : "";
      return "<li class='" + ruling + "' data-id='" + inc.id + "'><span class='kind'>#" + inc.id + " " +
        text(label(inc.kind)) + "</span> · " + text(sideText(inc.side)) + " · " + label("ply") + " " + inc.ply +
        text(wallText(inc.wall)) +
        (inc.points.length ? " · " + text(inc.points.join(", ")) : "") + "<br>" + text(detailText(inc)) +
        evidenceLinks(inc.evidence || {}) +
        "<div class='ruling'>" + label("ruling") + ": " + label(ruling) +
        (inc.ruling && inc.ruling.note ? " — " + text(inc.ruling.note) : "") + "</div>" + buttons + "</li>";
    });
    list.innerHTML = items.join("");
    el("no-incidents").style.display = items.length ? "none" : "";
    if (arbiter) refreshArmed();
  }

  // Review notes: evidence the model scored too weak to accuse on. Shown for the arbiter to look
  // at, with the score and the images; no ruling buttons (nobody is accused).
  function drawNotes(st) {
    var list = el("notes");
    if (!list) return;
    var notes = st.notes || [];
    list.innerHTML = notes.map(function (n) {
      return "<li class='note' data-note='" + n.id + "'><span class='kind'>" + text(label(n.kind)) + "</span> · " +
        text(sideText(n.side)) + " · " + label("ply") + " " + n.ply + text(wallText(n.wall)) +
        (n.points.length ? " · " + text(n.points.join(", ")) : "") + " · " + label("score") + " " +
        Number(n.score).toFixed(2) + "<br>" + text(detailText(n)) + evidenceLinks(n.evidence || {}) + "</li>";
    }).join("");
    el("notes-panel").hidden = !notes.length;
  }

  function drawSync(st) {
    var s = el("sync");
    if (!s) return;
    s.className = (isOverlay ? "ov-sync " : "sync ") + st.sync;
    s.textContent = label(st.sync);
    s.title = st.sync_detail || "";
  }

  function apply(st) {
    xq.state = st;
    xq.count += 1;
    el("board").innerHTML = st.svg;
    drawMoves(st);
    drawIncidents(st);
    drawNotes(st);
    drawSync(st);
    drawNames(st);
    drawEval(st);
    clockBase = st.clocks ? { red_ms: st.clocks.red_ms, black_ms: st.clocks.black_ms,
      running: st.ended ? null : st.clocks.running, at: performance.now() } : null;
    drawClocks();
    var h = st.headers || {};
    if (el("title") && (h.Red || h.Black)) el("title").textContent = (h.Red || "?") + " – " + (h.Black || "?");
    body.dataset.seq = st.seq;
    body.dataset.ply = st.ply;
    body.dataset.lastMove = st.last_move || "";
    body.dataset.sync = st.sync;
    var res = el("result");
    if (res) {
      res.hidden = st.result === "*";
      res.textContent = st.result === "*" ? "" : label("result") + ": " + st.result + (st.end_reason ? " (" + reasonText(st.end_reason) + ")" : "");
    }
    var enter = el("result-enter");
    if (enter && arbiter) {   // a result stands: the button revises it (each revision journalled)
      enter.dataset.text = label((st.results || []).length ? "revise" : "enter_result");
      showArmed(enter);
    }
    body.classList.toggle("no-clock", !st.clocks);
    xq.applied[st.seq] = Date.now();
  }

  function connect() {
    var url = "events?view=1" + (flip ? "&flip=1" : "");
    var es = new EventSource(url);
    es.addEventListener("state", function (ev) { apply(JSON.parse(ev.data)); });
    es.onerror = function () {
      var s = el("sync");
      if (s && es.readyState !== 1) { s.className = (isOverlay ? "ov-sync " : "sync ") + "reading"; s.textContent = label("reading"); }
    };
  }

  // Anything that changes the record takes a second click: the first turns the button into
  // "confirm: ...?" for a few seconds (a result, a ruling or a correction is never entered by a
  // slip). Kept by key, not on the button: the incident list is redrawn as the game goes on.
  var armed = {};
  function armKey(b) { return b.id || ("rule:" + b.dataset.id + ":" + b.dataset.decision); }
  function showArmed(b) {
    var on = (armed[armKey(b)] || 0) > Date.now();
    if (!b.dataset.text) b.dataset.text = b.textContent;
    b.classList.toggle("confirming", on);
    b.textContent = on ? label("confirm") + ": " + b.dataset.text + "?" : b.dataset.text;
  }
  function refreshArmed() {
    Array.prototype.forEach.call(document.querySelectorAll("button[data-decision], #result-enter, #correct-enter"),
      showArmed);
  }
  function confirmed(b) {
    var k = armKey(b);
    if ((armed[k] || 0) > Date.now()) { delete armed[k]; showArmed(b); return true; }
    armed[k] = Date.now() + 6000;
    showArmed(b);
    setTimeout(refreshArmed, 6100);
    return false;
  }
  function say(t, bad) { var m = el("arbiter-msg"); if (m) { m.textContent = t; m.className = bad ? "err" : ""; } }
  function change(url, body, done) {
    fetch(url, { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body) }).then(function (r) {
      return r.text().then(function (t) { if (r.ok) { say(""); if (done) done(); } else { say(t, true); } });
    }).catch(function () { say("unreachable", true); });
  }

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button[data-decision]");
    if (!b || !arbiter || !confirmed(b)) return;
    var note = window.prompt(label("note")) || "";
    var body = { incident: parseInt(b.dataset.id, 10), decision: b.dataset.decision, note: note };
    if (b.dataset.revises) body.revises = parseInt(b.dataset.revises, 10);
    change("rule", body);
  });

  function becomeArbiter() {
    arbiter = true;
    if (xq.state) { drawIncidents(xq.state); drawNotes(xq.state); }
    if (!el("arbiter")) return;
    el("arbiter").hidden = false;
    if (el("correct-panel")) el("correct-panel").hidden = false;
    el("result-enter").addEventListener("click", function () {
      var b = el("result-enter");
      if (!confirmed(b)) return;
      var body = { result: el("result-value").value, reason: el("result-reason").value };
      var st = xq.state, results = (st && st.results) || [];
      if (results.length) body.revises = results[results.length - 1].revision;   // a result stands: revise it
      change("result", body);
    });
    var fix = el("correct-enter");
    if (fix) fix.addEventListener("click", function () {
      if (!confirmed(fix)) return;
      change("correct", { from_ply: parseInt(el("correct-from").value, 10), moves: el("correct-moves").value,
        note: el("correct-note").value }, function () { el("correct-moves").value = ""; });
    });
  }

  if (!isOverlay) {
    fetch("session.json", { credentials: "same-origin", cache: "no-store" }).then(function (r) { return r.json(); })
      .then(function (d) {
        if (d.setup === false) {   // the hall's hub has no camera frame: no set-up check to link to
          Array.prototype.forEach.call(document.querySelectorAll("a[href^='setup']"), function (a) { a.hidden = true; });
        }
        if (d.arbiter) becomeArbiter();
      }).catch(function () {});
  }

  function drawNames(st) {
    var h = st.headers || {};
    ["red", "black"].forEach(function (side) {
      var n = el("clock-" + side) && el("clock-" + side).querySelector(".name");
      if (n) n.textContent = h[side === "red" ? "Red" : "Black"] || "";
    });
    body.classList.toggle("no-names", !(h.Red || h.Black));
  }

  // The engine's evaluation (st.eval, from red's side): red's share of the bar grows from red's end
  // of the board; while the new position is still being thought about the last bar stays, dimmed.
  function drawEval(st) {
    var bar = el("evalbar");
    if (!bar || !body.classList.contains("show-eval")) return;
    var ev = st.eval, fill = bar.querySelector(".evalbar-red"), txt = bar.querySelector(".evalbar-text");
    var line = el("evalline");
    bar.classList.toggle("flipped", flip);
    bar.dataset.status = ev ? ev.status : "off";
    if (!ev || ev.status !== "ok") {
      bar.classList.add("pending");
      if (!bar.dataset.score) txt.textContent = ev ? "…" : "–";
      if (line) line.textContent = ev ? (ev.engine || "") + " " + (ev.status === "thinking" ? "…" : ev.status) +
        (ev.detail ? ": " + ev.detail : "") : "no engine (xqtrack … --engine)";
      return;
    }
    bar.classList.remove("pending");
    var share = Math.max(0, Math.min(1, ev.red_share));
    fill.style[bar.classList.contains("horizontal") ? "width" : "height"] = (share * 100).toFixed(1) + "%";
    txt.textContent = ev.text;
    bar.classList.toggle("black-better", share < 0.5);
    bar.dataset.score = ev.text;
    bar.dataset.share = share.toFixed(3);
    if (line) line.textContent = ev.text + "  d" + ev.depth + "  " + (ev.pv_chinese || []).slice(0, 8).join(" ");
  }

  setInterval(drawClocks, 200);
  if (window.XQ_STATE) apply(window.XQ_STATE);   // the state the server drew the page with: no blank frame
  connect();
})();
