// My Submissions follows its brains' statuses: each time the challenge changes (the Scoreboard's
// event stream), the page is fetched again and its table swapped in.  The table is the server's
// own escaped HTML, parsed as an inert document (nothing in it runs).
(function () {
  "use strict";
  var table = document.getElementById("submissions");
  if (!table || !table.dataset.events || !window.EventSource) return;
  var busy = false, again = false;

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(location.href, { credentials: "same-origin", cache: "no-store" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var fresh = new DOMParser().parseFromString(text, "text/html").getElementById("submissions");
        if (fresh) table.replaceChild(document.importNode(fresh.tBodies[0], true), table.tBodies[0]);
      })
      .catch(function () {})
      .then(function () { busy = false; if (again) { again = false; refresh(); } });
  }

  var source = new EventSource(table.dataset.events + "?since=" + encodeURIComponent(table.dataset.version));
  source.onmessage = function (e) { table.dataset.version = String(JSON.parse(e.data).version); refresh(); };
})();
