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
      // (the words come made in the page's language)
      var games = r.shown_games, sofar = r.so_far;
      cell(tr, r.points);
      if (data.seated) {  // a game of more seats: the mean ± error, the rating ± sigma
        cell(tr, r.mean).className = "mean";
        cell(tr, r.rating).className = "rating";
      }
      [r.wins, r.draws, r.losses, games].forEach(function (v) { cell(tr, v); });
      cell(tr, sofar).className = "so-far";
      cell(tr, r.latest);
      if (r.provisional) {
        tr.className = "provisional";
        tr.title = r.note;
      }
      body.appendChild(tr);
    });
    table.replaceChild(body, table.tBodies[0]);
    // The "so far" column is shown while some row is provisional (else it is empty).
    table.classList.toggle("has-provisional", data.rows.some(function (r) { return r.provisional; }));
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
