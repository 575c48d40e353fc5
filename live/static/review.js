// The arbiter's forms on the served review (added by the server only for a browser holding the
// arbiters' token: live/server.py with_review_forms; the file on disk has no script). Rulings on
// each incident, the result, and corrections of the record; a change takes a second click, a
// ruling or result standing already is revised (the request names its revision), and the page
// reloads once the journal has the line (the writer rebuilds review.html before it answers).
(function () {
  "use strict";
  var body = document.body;
  function mk(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text) e.textContent = text;
    return e;
  }
  var msg = mk("p", { id: "arb-msg", "class": "meta" });
  var who = mk("input", { id: "arb-by", placeholder: "裁判 arbiter", value: localStorage.getItem("xq-arbiter") || "" });
  function say(t, bad) { msg.textContent = t; msg.className = bad ? "flag" : "meta"; }
  function by() { localStorage.setItem("xq-arbiter", who.value); return who.value.trim(); }

  function confirmed(b) {
    if (b.dataset.armed === "1") { clearTimeout(+b.dataset.timer); disarm(b); return true; }
    b.dataset.armed = "1";
    b.dataset.text = b.textContent;
    b.textContent = "确认 confirm: " + b.textContent + "?";
    b.dataset.timer = String(setTimeout(function () { disarm(b); }, 6000));
    return false;
  }
  function disarm(b) {
    if (b.dataset.armed !== "1") return;
    b.dataset.armed = "";
    b.textContent = b.dataset.text;
  }
  function post(url, data) {
    data.by = by();
    fetch(url, { method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(data) }).then(function (r) {
      return r.text().then(function (t) {
        if (!r.ok) { say(t, true); return; }
        say("✓");
        // 200: journalled here, the review rebuilt; 202 (the hall's hub): on its way to the station
        setTimeout(function () { location.reload(); }, r.status === 202 ? 1500 : 300);
      });
    }).catch(function () { say("unreachable", true); });
  }

  // the arbiter's name, and where the answers show
  var head = mk("div", { "class": "arb", id: "arb-head" });
  head.appendChild(who);
  head.appendChild(msg);
  var h1 = document.querySelector("h1");
  h1.parentNode.insertBefore(head, h1.nextSibling);

  // rulings: uphold / dismiss on an open incident, revise on a ruled one
  Array.prototype.forEach.call(document.querySelectorAll(".inc[data-id]"), function (inc) {
    if (inc.dataset.retracted === "1") return;
    var box = mk("div", { "class": "arb" });
    var note = mk("input", { "class": "arb-note", placeholder: "备注 note" });
    var rev = inc.dataset.revision;
    [["uphold", "维持 uphold"], ["dismiss", "驳回 dismiss"]].forEach(function (d) {
      var b = mk("button", { "data-decision": d[0] }, (rev ? "修改 revise: " : "") + d[1]);
      b.addEventListener("click", function () {
        if (!confirmed(b)) return;
        var data = { incident: +inc.dataset.id, decision: d[0], note: note.value };
        if (rev) data.revises = +rev;
        post("rule", data);
      });
      box.appendChild(b);
    });
    box.appendChild(note);
    inc.appendChild(box);
  });

  // the result: entered once, revised after
  var rrev = body.dataset.resultRevision;
  var res = mk("div", { "class": "arb", id: "arb-result" });
  var sel = mk("select", { id: "arb-result-value" });
  ["1-0", "0-1", "1/2-1/2"].forEach(function (r) { sel.appendChild(mk("option", { value: r }, r)); });
  var reason = mk("input", { id: "arb-result-reason", placeholder: "原因 reason" });
  var enter = mk("button", { id: "arb-result-enter" }, rrev ? "修改 revise: 结果 result" : "记录结果 enter the result");
  enter.addEventListener("click", function () {
    if (!confirmed(enter)) return;
    var data = { result: sel.value, reason: reason.value };
    if (rrev) data.revises = +rrev;
    post("result", data);
  });
  [sel, reason, enter].forEach(function (e) { res.appendChild(e); });
  var summary = document.querySelector("table.summary");
  summary.parentNode.insertBefore(res, summary.nextSibling);

  // a correction of the record: the moves from a ply on (ICCS, WXF or Chinese), checked by the server
  var fix = mk("div", { "class": "arb", id: "arb-correct" });
  var plies = +(body.dataset.plies || 0);
  var from = mk("input", { id: "arb-from", type: "number", min: "1", max: String(plies + 1), value: String(plies || 1),
    style: "width:5em", title: "从回合 from ply" });
  var moves = mk("input", { id: "arb-moves", placeholder: "h2e2 h9g7 · C2.5 · 炮二平五" });
  var why = mk("input", { id: "arb-note", placeholder: "备注 note" });
  var go = mk("button", { id: "arb-correct-enter" }, "更正着法 correct the moves");
  go.addEventListener("click", function () {
    if (!confirmed(go)) return;
    post("correct", { from_ply: +from.value, moves: moves.value, note: why.value });
  });
  fix.appendChild(mk("span", {}, "从回合 from ply "));
  [from, moves, why, go].forEach(function (e) { fix.appendChild(e); });
  var game = document.querySelector(".game");
  game.parentNode.insertBefore(fix, game);
})();
