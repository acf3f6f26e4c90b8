// The live Scoreboard: one EventSource on /c/NAME/events; each message is the whole table as JSON,
// and every cell is set as text (nicknames are people's text, never markup).
(function () {
  "use strict";
  var table = document.getElementById("scoreboard");
  if (!table || !window.EventSource) return;
  var base = table.dataset.botBase;
  var version = table.dataset.version;
  var source;

  function cell(tr, text) {
    var td = document.createElement("td");
    td.textContent = String(text);
    tr.appendChild(td);
    return td;
  }

  function show(data) {
    var body = document.createElement("tbody");
    data.rows.forEach(function (r) {
      var tr = document.createElement("tr");
      cell(tr, r.rank);
      var name = document.createElement("td");
      var a = document.createElement("a");
      a.href = base + encodeURIComponent(r.bot);
      a.textContent = r.name;
      name.appendChild(a);
      tr.appendChild(name);
      var games = r.provisional ? r.games + " of " + r.due : r.games;
      var sofar = r.provisional ? "provisional, Elo " + r.elo : "";
      [r.points, r.wins, r.draws, r.losses, games, sofar, r.latest].forEach(function (v) { cell(tr, v); });
      if (r.provisional) {
        tr.className = "provisional";
        tr.title = "provisional: " + r.games + " of " + r.due + " games counted";
      }
      body.appendChild(tr);
    });
    table.replaceChild(body, table.tBodies[0]);
    document.getElementById("queued").textContent = String(data.queued);
    document.getElementById("playing").textContent = String(data.playing);
    version = String(data.version);
    table.dataset.version = version;
  }

  function open() {
    source = new EventSource(table.dataset.events + "?since=" + encodeURIComponent(version));
    source.onmessage = function (e) { show(JSON.parse(e.data)); };
  }
  open();
})();
