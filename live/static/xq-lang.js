// One language at a time on every page: ?lang=zh|en, else the browser's own language (zh* -> zh,
// anything else -> en); the switch in the page's header lists 中文 first. Labels come from
// live/labels.py (window.XQ_LABELS, [zh, en] per key). The server fills a template's label marks
// as "中文 English"; this script, loaded before the page's own, leaves the one language chosen.
// Times are shown in the browser's own time zone, written out here (HH:MM:SS), not by the
// locale, whose words (上午, PM) no page font would be asked to hold.
(function () {
  "use strict";
  var L = window.XQ_LABELS || {};
  var params = new URLSearchParams(location.search);
  var asked = params.get("lang");
  asked = asked === "zh" || asked === "en" ? asked : null;
  var lang = asked || (/^zh/i.test(navigator.language || "") ? "zh" : "en");
  var I = lang === "zh" ? 0 : 1;
  document.documentElement.lang = lang === "zh" ? "zh-Hans" : "en";

  function label(key) { var l = L[key]; return l ? l[I] : key; }
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  // An ISO-8601 wall time (the journal's, in UTC) as local HH:MM:SS, with the date when `withDate`
  // or when it is not today.
  function time(iso, withDate) {
    if (!iso) return "";
    var d = new Date(iso);
    if (isNaN(d.getTime())) return String(iso);
    var hms = pad(d.getHours()) + ":" + pad(d.getMinutes()) + ":" + pad(d.getSeconds());
    var now = new Date();
    if (withDate || d.toDateString() !== now.toDateString()) {
      return d.getFullYear() + "-" + pad(d.getMonth() + 1) + "-" + pad(d.getDate()) + " " + hms;
    }
    return hms;
  }
  function side(s) { return s === "red" || s === "black" ? label(s) : (s || ""); }
  function detail(inc) { return lang === "zh" && inc.detail_zh ? inc.detail_zh : (inc.detail || ""); }
  function reason(r) { return r && L[r] ? label(r) : (r || ""); }
  function boardName(n) { return label("board_name").replace("{n}", n); }
  // A link of ours keeps an explicit ?lang= choice.
  function href(url) {
    if (!asked) return url;
    var hash = "", i = url.indexOf("#");
    if (i >= 0) { hash = url.slice(i); url = url.slice(0, i); }
    return url + (url.indexOf("?") >= 0 ? "&" : "?") + "lang=" + asked + hash;
  }

  // "中文 English" as the server wrote it -> the chosen language, in text and in the attributes
  // a reader sees (placeholder, title, alt, aria-label), longest first.
  var pairs = Object.keys(L).map(function (k) { return [L[k][0] + " " + L[k][1], L[k][I]]; })
    .filter(function (p) { return p[0].length > 1; })
    .sort(function (a, b) { return b[0].length - a[0].length; });
  function swap(s) {
    if (!s) return s;
    for (var i = 0; i < pairs.length; i++) {
      if (s.indexOf(pairs[i][0]) >= 0) s = s.split(pairs[i][0]).join(pairs[i][1]);
    }
    return s;
  }
  function localise(root) {
    root = root || document.body;
    var walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, null), n, t;
    while ((n = walker.nextNode())) {
      t = swap(n.nodeValue);
      if (t !== n.nodeValue) n.nodeValue = t;
    }
    var els = root.querySelectorAll ? root.querySelectorAll("[placeholder],[title],[alt],[aria-label]") : [];
    Array.prototype.forEach.call(els, function (el) {
      ["placeholder", "title", "alt", "aria-label"].forEach(function (a) {
        var v = el.getAttribute(a);
        if (v) { var w = swap(v); if (w !== v) el.setAttribute(a, w); }
      });
    });
    document.title = swap(document.title);
  }

  // The 中文 | English switch: into #lang when the page has one, else after the header's links.
  function switcher() {
    var box = document.getElementById("lang");
    if (!box) {
      var nav = document.querySelector("header nav");
      if (!nav) return;
      box = document.createElement("span");
      box.id = "lang";
      nav.appendChild(box);
    }
    box.className = "lang";
    box.innerHTML = "";
    [["zh", "中文"], ["en", "English"]].forEach(function (c, i) {
      var p = new URLSearchParams(location.search);
      p.set("lang", c[0]);
      var a = document.createElement("a");
      a.href = location.pathname + "?" + p.toString() + location.hash;
      a.textContent = c[1];
      a.setAttribute("data-lang", c[0]);
      if (c[0] === lang) a.className = "on";
      if (i) box.appendChild(document.createTextNode(" | "));
      box.appendChild(a);
    });
  }

  window.XQ = { lang: lang, asked: asked, label: label, time: time, side: side, detail: detail,
                reason: reason, boardName: boardName, href: href, localise: localise };
  localise(document.body);
  switcher();
  // Our own links (board pages from the hall, the review…) keep an explicit choice.
  if (asked) {
    Array.prototype.forEach.call(document.querySelectorAll("header nav a[href]"), function (a) {
      if (!a.getAttribute("data-lang")) a.setAttribute("href", href(a.getAttribute("href")));
    });
  }
})();
