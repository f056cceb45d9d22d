/**
 * The review page's script (plain ES2017, no module, no network): the rater picker, one item at a time, scoring by
 * buttons and keys, notes, active time, progress, state in localStorage, and the ratings export. It reads the packet
 * from the `review-data` JSON element and exposes `window.reviewPacket`: `exportText()`, the text "Export ratings"
 * downloads, and `current()`, the id of the item shown.
 *
 * @module
 */

/** The script, inlined into the page by packet_html.ts. */
export const PAGE_SCRIPT = `(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("review-data").textContent);
  // Time on an item counts while the page is visible and focused, until 2 minutes pass without input.
  var IDLE_MS = 120000;
  var PREFIX = "gp-review:" + DATA.packet_id + ":";
  function $(id) { return document.getElementById(id); }
  var storageOk = true;
  var rater = null, list = [], state = null, ticks = 0;
  var lastInput = performance.now(), lastTick = lastInput, focused = true;

  function say(text) { $("status").textContent = text; }
  function load(key) {
    try {
      var t = localStorage.getItem(PREFIX + key);
      return t ? JSON.parse(t) : null;
    } catch (e) {
      storageOk = false;
      return null;
    }
  }
  function save(key, value) {
    try {
      localStorage.setItem(PREFIX + key, JSON.stringify(value));
    } catch (e) {
      if (storageOk) say("This browser keeps nothing for a page opened from disk: export your ratings before closing it.");
      storageOk = false;
    }
  }
  function persist() { if (rater !== null) save("rater:" + rater, state); }

  function rubricOf(id) { return DATA.rubrics[DATA.items[id].rubric]; }
  function ratingOf(id, create) {
    var r = state.ratings[id];
    if (!r && create) r = state.ratings[id] = { scores: {}, notes: "", time_spent_ms: 0, rated_iso: null };
    return r || null;
  }
  function scoredCount(id) {
    var r = ratingOf(id, false);
    if (!r) return 0;
    return rubricOf(id).criteria.filter(function (c) { return typeof r.scores[c.id] === "number"; }).length;
  }
  function complete(id) { return scoredCount(id) === rubricOf(id).criteria.length; }
  function onScale(scale, v) {
    return scale.kind === "pass_fail" ? v === 0 || v === 1 : v >= scale.min && v <= scale.max && v === Math.floor(v);
  }
  function passes(scale, v) { return scale.kind === "pass_fail" ? v === 1 : v >= scale.pass_at; }
  function values(scale) {
    if (scale.kind === "pass_fail") return [0, 1];
    var out = [];
    for (var v = scale.min; v <= scale.max; v++) out.push(v);
    return out;
  }
  function scaleText(scale) {
    return scale.kind === "pass_fail" ? "0 fail, 1 pass" : scale.min + " to " + scale.max + ", passes at " + scale.pass_at;
  }
  function scoreWord(scale, v) {
    if (scale.kind === "pass_fail") return v === 1 ? "pass" : "fail";
    return passes(scale, v) ? "passes" : "fails";
  }

  function active(now) {
    return rater !== null && document.visibilityState === "visible" && focused && now - lastInput < IDLE_MS;
  }
  function tick() {
    var now = performance.now();
    if (state && list.length && active(now)) ratingOf(list[state.index], true).time_spent_ms += now - lastTick;
    lastTick = now;
  }
  function onInput() {
    tick();
    lastInput = performance.now();
  }
  ["keydown", "mousedown", "mousemove", "wheel", "scroll", "touchstart", "input"].forEach(function (type) {
    window.addEventListener(type, onInput, { capture: true, passive: true });
  });
  window.addEventListener("focus", function () { tick(); focused = true; });
  window.addEventListener("blur", function () { tick(); focused = false; });
  document.addEventListener("visibilitychange", function () { tick(); persist(); });
  window.addEventListener("pagehide", function () { tick(); persist(); });
  setInterval(function () {
    tick();
    if (++ticks % 5 === 0) persist();
  }, 1000);

  function groups() { return Array.prototype.slice.call(document.querySelectorAll("#criteria .criterion")); }
  function criterionOf(group) { return rubricOf(list[state.index]).criteria[Number(group.dataset.index)]; }

  function renderText(container, text) {
    var div = document.createElement("div");
    div.className = "text";
    div.textContent = text;
    container.appendChild(div);
  }

  function show(i) {
    tick();
    state.index = i;
    persist();
    var id = list[i];
    var item = DATA.items[id];
    var rubric = rubricOf(id);
    var msgs = $("messages");
    msgs.textContent = "";
    item.messages.forEach(function (m) {
      var art = document.createElement("article");
      art.className = "message " + m.role;
      var h = document.createElement("h3");
      h.textContent = m.role;
      art.appendChild(h);
      renderText(art, m.content);
      msgs.appendChild(art);
    });
    $("answer").textContent = item.answer;
    var tools = $("tool-calls");
    tools.hidden = item.tool_calls.length === 0;
    $("tool-calls-text").textContent = JSON.stringify(item.tool_calls, null, 2);
    $("rubric-name").textContent = rubric.rubric_id + " " + rubric.version;
    $("instructions").textContent = rubric.instructions;
    var crit = $("criteria");
    crit.textContent = "";
    rubric.criteria.forEach(function (c, k) {
      var g = document.createElement("div");
      g.className = "criterion";
      g.id = "criterion-" + k;
      g.dataset.index = String(k);
      g.tabIndex = 0;
      g.setAttribute("role", "radiogroup");
      g.setAttribute("aria-labelledby", g.id + "-name");
      g.setAttribute("aria-describedby", g.id + "-desc");
      var head = document.createElement("div");
      head.className = "criterion-head";
      var name = document.createElement("span");
      name.id = g.id + "-name";
      name.className = "criterion-name";
      name.textContent = c.id;
      var sc = document.createElement("span");
      sc.className = "scale";
      sc.textContent = "(" + scaleText(c.scale) + ")";
      head.appendChild(name);
      head.appendChild(sc);
      g.appendChild(head);
      var desc = document.createElement("p");
      desc.id = g.id + "-desc";
      desc.textContent = c.description;
      g.appendChild(desc);
      var row = document.createElement("div");
      row.className = "scores";
      values(c.scale).forEach(function (v) {
        var b = document.createElement("button");
        b.type = "button";
        b.tabIndex = -1;
        b.setAttribute("role", "radio");
        b.dataset.score = String(v);
        b.textContent = c.scale.kind === "pass_fail" ? v + " " + scoreWord(c.scale, v) : String(v);
        b.setAttribute("aria-label", c.id + " " + v + ", " + scoreWord(c.scale, v));
        b.addEventListener("click", function () {
          setScore(k, v);
          g.focus();
        });
        row.appendChild(b);
      });
      g.appendChild(row);
      crit.appendChild(g);
    });
    var ex = $("examples-list");
    ex.textContent = "";
    [["pass", rubric.examples.pass], ["fail", rubric.examples.fail]].forEach(function (pair) {
      pair[1].forEach(function (e) {
        var art = document.createElement("article");
        art.className = "example " + pair[0];
        var h = document.createElement("h4");
        h.textContent = pair[0] === "pass" ? "An answer that passes" : "An answer that fails";
        art.appendChild(h);
        renderText(art, e.answer);
        var why = document.createElement("p");
        why.textContent = "Why: " + e.why;
        art.appendChild(why);
        ex.appendChild(art);
      });
    });
    var r = ratingOf(id, false);
    $("notes").value = r ? r.notes : "";
    update();
    var first = groups().filter(function (g) { return !g.classList.contains("scored"); })[0] || groups()[0];
    if (first) first.focus();
    $("prompt-pane").scrollTop = 0;
    $("answer-pane").scrollTop = 0;
    document.querySelector(".rubric").scrollTop = 0;
  }

  function update() {
    var id = list[state.index];
    var rubric = rubricOf(id);
    var r = ratingOf(id, false);
    groups().forEach(function (g) {
      var c = criterionOf(g);
      var s = r ? r.scores[c.id] : undefined;
      g.classList.toggle("scored", typeof s === "number");
      Array.prototype.forEach.call(g.querySelectorAll("button"), function (b) {
        b.setAttribute("aria-checked", String(Number(b.dataset.score) === s));
      });
    });
    var n = scoredCount(id), all = rubric.criteria.length;
    var verdict = $("verdict");
    if (n < all) {
      verdict.textContent = "Scored " + n + " of " + all + " criteria.";
      verdict.className = "verdict open";
    } else {
      var failed = rubric.criteria.filter(function (c) { return !passes(c.scale, r.scores[c.id]); });
      verdict.textContent = failed.length
        ? "Rubric verdict: fail (" + failed.map(function (c) { return c.id; }).join(", ") + ")."
        : "Rubric verdict: pass (every criterion passes).";
      verdict.className = "verdict " + (failed.length ? "fail" : "pass");
    }
    var done = list.filter(complete).length;
    $("position").textContent = "Item " + (state.index + 1) + " of " + list.length;
    $("progress-text").textContent = done + " of " + list.length + " rated";
    $("progress").value = list.length ? done / list.length : 0;
    $("prev").disabled = state.index === 0;
    $("next").disabled = state.index === list.length - 1;
  }

  function setScore(k, v) {
    var id = list[state.index];
    var c = rubricOf(id).criteria[k];
    if (!onScale(c.scale, v)) {
      say(c.id + ": " + v + " is not on its scale (" + scaleText(c.scale) + ").");
      return false;
    }
    var r = ratingOf(id, true);
    r.scores[c.id] = v;
    r.rated_iso = new Date().toISOString();
    persist();
    update();
    say(c.id + ": " + v + " (" + scoreWord(c.scale, v) + ").");
    return true;
  }

  function go(delta) {
    var i = state.index + delta;
    if (i < 0) return say("This is the first item.");
    if (i >= list.length) {
      return say("This is the last item: " + list.filter(complete).length + " of " + list.length +
        " rated. Export your ratings when you are done.");
    }
    show(i);
  }

  function focusGroup(k) {
    var gs = groups();
    if (!gs.length) return null;
    var g = gs[Math.max(0, Math.min(gs.length - 1, k))];
    g.focus();
    return g;
  }

  function exportText() {
    tick();
    var ratings = [];
    list.forEach(function (id) {
      var r = state.ratings[id];
      if (!r || !Object.keys(r.scores).length) return;
      var scores = {};
      rubricOf(id).criteria.forEach(function (c) {
        if (typeof r.scores[c.id] === "number") scores[c.id] = r.scores[c.id];
      });
      ratings.push({
        item: id,
        scores: scores,
        notes: r.notes,
        time_spent_ms: Math.round(r.time_spent_ms),
        rated_iso: r.rated_iso,
      });
    });
    persist();
    return JSON.stringify(
      { packet_id: DATA.packet_id, packet_sha256: DATA.packet_sha256, rater: rater, ratings: ratings },
      null,
      2,
    );
  }

  function exportRatings() {
    var text = exportText();
    var rated = JSON.parse(text).ratings;
    var open = rated.filter(function (x) { return !complete(x.item); }).length;
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    a.download = "ratings-" + DATA.packet_id + "-" + rater + ".json";
    document.body.appendChild(a);
    a.click();
    setTimeout(function () {
      URL.revokeObjectURL(a.href);
      a.remove();
    }, 1000);
    say("Exported " + rated.length + " rated items to " + a.download +
      (open ? "; " + open + " of them not fully scored: the import refuses those until every criterion is." : "."));
  }

  var helpReturn = null;
  function openHelp() {
    helpReturn = document.activeElement;
    $("help").hidden = false;
    $("help-close").focus();
  }
  function closeHelp() {
    $("help").hidden = true;
    if (helpReturn && helpReturn.focus) helpReturn.focus();
  }

  function start(name) {
    if (!name || !DATA.raters[name]) return say("Choose your name first.");
    tick();
    rater = name;
    list = DATA.raters[name];
    state = load("rater:" + name) || { index: 0, ratings: {} };
    if (!(state.index >= 0 && state.index < list.length)) state.index = 0;
    save("last-rater", name);
    $("pick").hidden = true;
    $("work").hidden = false;
    $("rater-name").textContent = name;
    lastTick = lastInput = performance.now();
    say(list.length + " items for " + name + ". Press ? for the keys.");
    show(state.index);
  }

  document.addEventListener("keydown", function (e) {
    if (!$("help").hidden) {
      if (e.key === "Escape" || e.key === "?") {
        closeHelp();
        e.preventDefault();
      }
      return;
    }
    if (rater === null || e.ctrlKey || e.metaKey || e.altKey) return;
    var t = e.target, tag = t && t.tagName;
    if (tag === "TEXTAREA" || tag === "INPUT" || tag === "SELECT") {
      if (e.key === "Escape") {
        focusGroup(0);
        e.preventDefault();
      }
      return;
    }
    var g = t && t.closest ? t.closest(".criterion") : null;
    var k = g ? Number(g.dataset.index) : -1;
    if (e.key.length === 1 && e.key >= "0" && e.key <= "9") {
      if (!g) {
        var open = groups().filter(function (x) { return !x.classList.contains("scored"); });
        g = open[0] || groups()[0];
        k = Number(g.dataset.index);
      }
      if (setScore(k, Number(e.key))) focusGroup(k + 1 < groups().length ? k + 1 : k);
      e.preventDefault();
      return;
    }
    switch (e.key) {
      case "ArrowDown":
        focusGroup(k + 1);
        break;
      case "ArrowUp":
        focusGroup(k < 0 ? 0 : k - 1);
        break;
      case "ArrowRight":
      case "ArrowLeft": {
        if (!g) return;
        var c = criterionOf(g), r = ratingOf(list[state.index], false);
        var s = r ? r.scores[c.id] : undefined;
        var vs = values(c.scale);
        var at = typeof s === "number" ? vs.indexOf(s) : (e.key === "ArrowRight" ? -1 : vs.length);
        var next = vs[Math.max(0, Math.min(vs.length - 1, at + (e.key === "ArrowRight" ? 1 : -1)))];
        setScore(k, next);
        break;
      }
      case "n":
        go(1);
        break;
      case "p":
        go(-1);
        break;
      case "Enter":
        if (tag === "BUTTON" || tag === "SUMMARY" || tag === "A") return;
        go(e.shiftKey ? -1 : 1);
        break;
      case "?":
        openHelp();
        break;
      default:
        return;
    }
    e.preventDefault();
  });

  $("notes").addEventListener("input", function () {
    var r = ratingOf(list[state.index], true);
    r.notes = $("notes").value;
    r.rated_iso = new Date().toISOString();
    persist();
  });
  $("prev").addEventListener("click", function () { go(-1); });
  $("next").addEventListener("click", function () { go(1); });
  $("export").addEventListener("click", exportRatings);
  $("help-button").addEventListener("click", openHelp);
  $("help-close").addEventListener("click", closeHelp);
  $("switch-rater").addEventListener("click", function () {
    tick();
    persist();
    rater = null;
    $("work").hidden = true;
    $("pick").hidden = false;
    $("rater-select").focus();
  });
  var select = $("rater-select");
  Object.keys(DATA.raters).sort().forEach(function (name) {
    var o = document.createElement("option");
    o.value = name;
    o.textContent = name + " (" + DATA.raters[name].length + " items)";
    select.appendChild(o);
  });
  var last = load("last-rater");
  if (last && DATA.raters[last]) select.value = last;
  $("start").addEventListener("click", function () { start(select.value); });
  select.addEventListener("keydown", function (e) {
    if (e.key === "Enter") start(select.value);
  });
  if (!storageOk) say("This browser keeps nothing for a page opened from disk: export your ratings before closing it.");
  window.reviewPacket = {
    exportText: exportText,
    current: function () { return state ? list[state.index] : null; },
  };
})();`;
