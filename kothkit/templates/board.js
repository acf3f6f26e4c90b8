  // A kothkit.picture.Grid (as JSON) drawn as SVG: the one drawing of the replay, report and play
  // pages.  Styles: "points" (pieces on the crossings of the lines), "cells" (pieces in the holes
  // of a board), "stones" (pieces in the squares of a lined board); g.board, g.lines and g.empty
  // are the board's, its lines' and an empty cell's colours (the style's own when the game gave
  // none; null: not drawn).  opts.scale enlarges it; opts.targets[r][c], with opts.click(text),
  // makes each cell a clickable rect.target.  Every text is set as text.
  function kothkitBoard(g, opts) {
    opts = opts || {};
    var NS = "http://www.w3.org/2000/svg";
    function el(tag, attrs, parent) {
      var e = document.createElementNS(NS, tag);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      if (parent) parent.appendChild(e);
      return e;
    }
    var rows = g.rows.length, cols = rows ? g.rows[0].length : 0;
    var points = g.style !== "cells" && g.style !== "stones";
    var s = Math.round((points ? 28 : 40) * (opts.scale || 1));
    var left = g.row_labels.length ? 26 : 8, top = g.col_labels.length ? 22 : 8;
    var w = left + cols * s + 8, h = top + rows * s + 8;
    var svg = el("svg", {xmlns: NS, width: w, height: h, viewBox: "0 0 " + w + " " + h, "class": "board board-" + g.style});
    function cx(c) { return left + c * s + s / 2; }
    function cy(r) { return top + r * s + s / 2; }
    el("rect", {x: left, y: top, width: cols * s, height: rows * s, rx: g.style === "cells" ? 6 : 0,
                fill: g.board || "none", "class": "ground"}, svg);
    if (g.lines) {
      if (points) {
        for (var i = 0; i < rows; i++) el("line", {x1: cx(0), y1: cy(i), x2: cx(cols - 1), y2: cy(i), stroke: g.lines, "stroke-width": 1, "class": "grid"}, svg);
        for (var j = 0; j < cols; j++) el("line", {x1: cx(j), y1: cy(0), x2: cx(j), y2: cy(rows - 1), stroke: g.lines, "stroke-width": 1, "class": "grid"}, svg);
      } else {
        for (var i2 = 0; i2 <= rows; i2++) el("line", {x1: left, y1: top + i2 * s, x2: left + cols * s, y2: top + i2 * s, stroke: g.lines, "stroke-width": 1, "class": "grid"}, svg);
        for (var j2 = 0; j2 <= cols; j2++) el("line", {x1: left + j2 * s, y1: top, x2: left + j2 * s, y2: top + rows * s, stroke: g.lines, "stroke-width": 1, "class": "grid"}, svg);
      }
    }
    g.col_labels.forEach(function (t, c) { el("text", {x: cx(c), y: top - 7, "font-size": 11, "text-anchor": "middle", fill: "#555"}, svg).textContent = t; });
    g.row_labels.forEach(function (t, r) { el("text", {x: left - 6, y: cy(r) + 4, "font-size": 11, "text-anchor": "end", fill: "#555"}, svg).textContent = t; });
    g.shaded_rows.forEach(function (r) {
      el("rect", {x: left, y: top + r * s, width: cols * s, height: s, fill: "#000", "fill-opacity": 0.28, "class": "shaded"}, svg);
    });
    for (var r = 0; r < rows; r++) {
      for (var c = 0; c < cols; c++) {
        var ch = g.rows[r].charAt(c), colour = g.pieces[ch];
        if (colour) {
          el("circle", {cx: cx(c), cy: cy(r), r: s * 0.42, fill: colour, stroke: "#333", "stroke-width": 1, "class": "piece", "data-piece": ch, "data-cell": r + "," + c}, svg);
        } else if (g.empty) {
          el("circle", {cx: cx(c), cy: cy(r), r: s * 0.42, fill: g.empty, "class": "hole", "data-cell": r + "," + c}, svg);
        }
        if (opts.targets) {
          var t = el("rect", {x: left + c * s, y: top + r * s, width: s, height: s, fill: "#fff", "fill-opacity": 0, "class": "target", "data-cell": r + "," + c}, svg);
          t.addEventListener("click", opts.click.bind(null, opts.targets[r][c]));
        }
      }
    }
    g.last.forEach(function (p) {
      el("circle", {cx: cx(p[1]), cy: cy(p[0]), r: s * 0.2, fill: "none", stroke: "#e0142c", "stroke-width": 3, "class": "last"}, svg);
    });
    if (g.line.length > 1) {
      var a = g.line[0], b = g.line[g.line.length - 1];
      var ends = {x1: cx(a[1]), y1: cy(a[0]), x2: cx(b[1]), y2: cy(b[0]), "stroke-linecap": "round"};
      el("line", Object.assign({stroke: "#fff", "stroke-width": 9}, ends), svg);
      el("line", Object.assign({stroke: "#1f8f3a", "stroke-width": 5, "class": "winline"}, ends), svg);
    }
    return svg;
  }
