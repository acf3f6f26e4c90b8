// The Play page (templates/play.html): polls the game's state, draws the board with kothkitBoard
// (board.js, the replay pages' drawing), and posts the person's entries: a click on a cell, a
// button (Swap2's opening choices), or a typed entry.  Everything a game says is set as text.
(function () {
  "use strict";
  var root = document.getElementById("play");
  if (!root) return;
  var cfg = root.dataset, seq = -1, game = null, state = null, prefix = "", pending = [], need = 1, timer = null;
  var $ = function (id) { return document.getElementById(id); };

  function post(url, fields) {
    var body = new URLSearchParams(fields);
    body.set("csrf", cfg.csrf);
    return fetch(url, {method: "POST", body: body, credentials: "same-origin"});
  }
  function send(text) {
    prefix = ""; pending = []; need = state ? state.clicks || 1 : 1;
    $("entry").value = "";
    post(cfg.moveUrl, {text: text}).then(poll, poll);
  }
  function clicked(text) {
    pending.push(text);
    var entry = (prefix ? prefix + " " : "") + pending.join(" ");
    $("entry").value = entry;
    if (pending.length >= need) send(entry);
  }
  function render(st) {
    var boards = $("boards"), pre = $("board");
    boards.textContent = "";
    if (st.picture) {
      st.picture.forEach(function (p, i) {
        var panel = document.createElement("div");
        panel.className = "panel";
        if (p.title) { var t = document.createElement("div"); t.textContent = p.title; panel.appendChild(t); }
        var targets = st.waiting && i === st.clickable ? st.cells : null;
        if (p.rows) panel.appendChild(kothkitBoard(p, {scale: 1.1, targets: targets, click: clicked}));
        else if (p.svg !== undefined) {
          var holder = document.createElement("div");
          holder.innerHTML = p.svg;  // drawn by the game's own plugin
          panel.appendChild(holder);
        }
        boards.appendChild(panel);
      });
      pre.classList.add("hidden");
    } else {
      pre.textContent = st.board || "";
      pre.classList.remove("hidden");
    }
    $("asks").textContent = st.waiting ? st.asks : (st.over ? "" : cfg.thinking);
    $("message").textContent = st.message || "";
    $("result").textContent = st.over ? (st.abandoned ? cfg.left + " " : cfg.result + " ") + st.result : "";
    $("form").classList.toggle("hidden", !st.waiting);
    $("quit-form").classList.toggle("hidden", !!st.over);
    $("after").classList.toggle("hidden", !st.over);
    if ($("again-form")) $("again-form").classList.toggle("hidden", !st.final);
    if (!st.replay) $("replay").classList.add("hidden");
    if (st.replay) { $("replay").href = st.replay; $("replay").classList.remove("hidden"); }
    var buttons = $("buttons");
    buttons.textContent = "";
    (st.waiting ? st.buttons || [] : []).forEach(function (b) {
      var e = document.createElement("button");
      e.type = "button";
      e.textContent = b[0];
      e.addEventListener("click", function () {
        if (b[2] === 0) { send(b[1]); return; }
        prefix = b[1]; pending = []; need = b[2];
        $("entry").value = prefix + " ";
      });
      buttons.appendChild(e);
    });
    var log = $("log");
    log.textContent = (st.log || []).join("\n");
    log.scrollTop = log.scrollHeight;
    document.body.setAttribute("data-seq", st.seq);
    document.body.setAttribute("data-state", st.over ? "over" : st.waiting ? "waiting" : "thinking");
    // A finished game changes no more (a local page goes on: its New game starts another).
    if (st.final && !cfg.againUrl && timer !== null) { clearInterval(timer); timer = null; }
  }
  function poll() {
    return fetch(cfg.stateUrl, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
      if (!r.ok) throw new Error("state " + r.status);
      return r.json();
    }).then(function (st) {
      if (st.seq !== seq || st.game !== game) {
        // A new question (the page may never see the bot's turn in between), or a new game: start
        // its entry afresh.
        var fresh = !state || state.turn !== st.turn || st.game !== game;
        seq = st.seq; game = st.game; state = st;
        if (fresh) { prefix = ""; pending = []; need = st.clicks || 1; }
        render(st);
      }
    }).catch(function () {});
  }
  $("form").addEventListener("submit", function (e) {
    e.preventDefault();
    send($("entry").value);
  });
  $("quit-form").addEventListener("submit", function (e) {
    e.preventDefault();
    post(cfg.quitUrl, {}).then(function (r) {
      // Said at once: a local page's server stops with the game (the site's state follows).
      if (r.ok) render(Object.assign({}, state || {}, {over: true, waiting: false, abandoned: true, result: "",
                                                        message: "", buttons: []}));
      return poll();
    }, poll);
  });
  if ($("again-form")) {
    $("again-form").addEventListener("submit", function (e) {
      e.preventDefault();
      post(cfg.againUrl, {}).then(poll, poll);
    });
  }
  poll();
  timer = setInterval(poll, 300);
})();
