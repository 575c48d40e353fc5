// The live page and the OBS overlay: one state message per journal change (/events?view=1),
// drawn as it comes; the running clock counts down here between presses.
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var flip = params.get("flip") === "1" || params.get("flip") === "true";
  var token = params.get("token");
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

  function el(id) { return document.getElementById(id); }
  function label(key) { var l = L[key]; return l ? l[0] + " " + l[1] : key; }
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
      return "<a target='_blank' href='" + ev[k] + "'>" + text(label(k)) + "</a>";
    }).join(" · ") + "</div>";
  }

  function drawIncidents(st) {
    var list = el("incidents");
    if (!list) return;
    var items = st.incidents.map(function (inc) {
      var ruling = inc.ruling ? inc.ruling.decision : "pending";
      if (inc.retracted) {   // withdrawn after a correction: shown struck through, nothing to rule on
        return "<li class='retracted' data-id='" + inc.id + "'><span class='kind'><s>#" + inc.id + " " +
          text(label(inc.kind)) + "</s></span> · " + label("ply") + " " + inc.ply + "<br>retracted: " +
          text(inc.retracted.reason || "") + "</li>";
      }
      var buttons = token && !inc.ruling ?
        "<br><button data-id='" + inc.id + "' data-decision='uphold'>" + label("uphold") + "</button>" +
        "<button data-id='" + inc.id + "' data-decision='dismiss'>" + label("dismiss") + "</button>" : "";
      return "<li class='" + ruling + "' data-id='" + inc.id + "'><span class='kind'>#" + inc.id + " " +
        text(label(inc.kind)) + "</span> · " + text(inc.side || "") + " · " + label("ply") + " " + inc.ply +
        (inc.points.length ? " · " + text(inc.points.join(", ")) : "") + "<br>" + text(inc.detail) +
        evidenceLinks(inc.evidence || {}) +
        "<div class='ruling'>" + label("ruling") + ": " + label(ruling) +
        (inc.ruling && inc.ruling.note ? " — " + text(inc.ruling.note) : "") + "</div>" + buttons + "</li>";
    });
    list.innerHTML = items.join("");
    el("no-incidents").style.display = items.length ? "none" : "";
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
    drawSync(st);
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
      res.textContent = st.result === "*" ? "" : label("result") + ": " + st.result + (st.end_reason ? " (" + st.end_reason + ")" : "");
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

  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("button[data-decision]");
    if (!b || !token) return;
    var note = window.prompt(label("note")) || "";
    fetch("rule", { method: "POST", headers: { "Content-Type": "application/json", "X-XQ-Token": token },
      body: JSON.stringify({ incident: parseInt(b.dataset.id, 10), decision: b.dataset.decision, note: note }) })
      .then(function (r) { if (!r.ok) r.text().then(function (t) { window.alert(t); }); });
  });

  if (token && el("arbiter")) {
    el("arbiter").hidden = false;
    el("result-enter").addEventListener("click", function () {
      fetch("result", { method: "POST", headers: { "Content-Type": "application/json", "X-XQ-Token": token },
        body: JSON.stringify({ result: el("result-value").value, reason: el("result-reason").value }) })
        .then(function (r) { if (!r.ok) r.text().then(function (t) { window.alert(t); }); });
    });
  }

  setInterval(drawClocks, 200);
  connect();
})();
