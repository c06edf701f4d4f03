// The console pages' live parts. Plain DOM; no framework, nothing fetched from elsewhere.
//
// The IPoIB page's chart: polls rates.json every 2 s and draws packets/s (rx, tx) and drops/s per
// interface as SVG polylines.
(function () {
  'use strict';
  var box = document.getElementById('ipoib-live');
  if (!box) { return; }
  var svg = document.getElementById('ipoib-live-chart');
  var legend = document.getElementById('ipoib-live-legend');
  var NS = 'http://www.w3.org/2000/svg';
  var W = 900, H = 220, PAD = 30, SECONDS = 300;
  var colours = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

  function el(name, attrs, text) {
    var e = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }

  function line(values, max, colour, dashed, id) {
    var points = [];
    var offset = SECONDS - values.length;
    for (var i = 0; i < values.length; i++) {
      var x = PAD + (W - 2 * PAD) * (offset + i) / (SECONDS - 1);
      var y = H - PAD - (H - 2 * PAD) * values[i] / max;
      points.push(x.toFixed(1) + ',' + y.toFixed(1));
    }
    var attrs = { points: points.join(' '), fill: 'none', stroke: colour, 'stroke-width': 1.5, id: id };
    if (dashed) { attrs['stroke-dasharray'] = '4 3'; }
    return el('polyline', attrs);
  }

  function draw(data) {
    while (svg.childNodes.length > 1) { svg.removeChild(svg.lastChild); }
    var names = Object.keys(data.links);
    var max = 1;
    names.forEach(function (n) {
      var s = data.links[n];
      s.rx.concat(s.tx, s.drops).forEach(function (v) { if (v > max) { max = v; } });
    });
    svg.appendChild(el('line', { x1: PAD, y1: H - PAD, x2: W - PAD, y2: H - PAD, stroke: '#999' }));
    svg.appendChild(el('text', { x: 2, y: PAD - 8, 'font-size': 11 }, max + '/s'));
    svg.appendChild(el('text', { x: W - PAD - 40, y: H - 8, 'font-size': 11 }, 'now'));
    svg.appendChild(el('text', { x: PAD, y: H - 8, 'font-size': 11 }, '-5 min'));
    var text = [];
    names.forEach(function (n, i) {
      var s = data.links[n], c = colours[i % colours.length];
      svg.appendChild(line(s.rx, max, c, false, 'ipoib-live-rx-' + n));
      svg.appendChild(line(s.tx, max, c, true, 'ipoib-live-tx-' + n));
      svg.appendChild(line(s.drops, max, '#d00', true, 'ipoib-live-drops-' + n));
      var last = function (a) { return a.length ? a[a.length - 1] : 0; };
      text.push(n + ': rx ' + last(s.rx) + '/s, tx ' + last(s.tx) + '/s, drops ' + last(s.drops) + '/s');
    });
    legend.textContent = names.length ? text.join('  |  ') + '  (solid rx, dashed tx, red drops)' : 'no interfaces';
    box.setAttribute('data-samples', names.length ? data.links[names[0]].rx.length : 0);
  }

  function poll() {
    var request = new XMLHttpRequest();
    request.open('GET', box.getAttribute('data-source'));
    request.onload = function () {
      if (request.status === 200) { draw(JSON.parse(request.responseText)); }
      setTimeout(poll, 2000);
    };
    request.onerror = function () { legend.textContent = 'console unreachable; retrying'; setTimeout(poll, 5000); };
    request.send();
  }
  poll();
}());


// Every page with a #ipoib-refresh marker: polls the page's JSON (the marker's data-source) every
// 2 s and redraws each table[data-live] from the JSON array of that name (cells in the order of
// its data-columns), each [data-live-text] element's text from that JSON string, and each
// [data-live-svg] element from the SVG at that address. The marker's data-refreshed counts the
// redraws (a test waits for one); data-error says why the last poll failed.
(function () {
  'use strict';
  var marker = document.getElementById('ipoib-refresh');
  if (!marker) { return; }

  function cell(value) {
    if (value === null || value === undefined) { return '-'; }
    if (typeof value === 'object') {
      return Object.keys(value).map(function (k) { return k + '=' + value[k]; }).join('  ');
    }
    return String(value);
  }

  function redrawTable(table, rows) {
    var columns = table.getAttribute('data-columns').split(',');
    var body = document.createElement('tbody');
    if (!rows.length) {
      var tr = body.insertRow();
      var td = tr.insertCell();
      td.colSpan = columns.length;
      td.textContent = table.getAttribute('data-empty');
    }
    rows.forEach(function (row) {
      var tr = body.insertRow();
      columns.forEach(function (c) { tr.insertCell().textContent = cell(row[c]); });
    });
    table.replaceChild(body, table.tBodies[0]);
  }

  function get(url, then) {
    var request = new XMLHttpRequest();
    request.open('GET', url);
    request.onload = function () {
      if (request.status === 200) { then(request.responseText); } else { marker.setAttribute('data-error', url + ': ' + request.status); }
    };
    request.onerror = function () { marker.setAttribute('data-error', url + ': unreachable'); };
    request.send();
  }

  function redraw(text) {
    var data = JSON.parse(text);
    document.querySelectorAll('table[data-live]').forEach(function (table) {
      var rows = data[table.getAttribute('data-live')];
      if (Array.isArray(rows)) { redrawTable(table, rows); }
    });
    document.querySelectorAll('[data-live-text]').forEach(function (e) {
      var value = data[e.getAttribute('data-live-text')];
      if (typeof value === 'string' && e.textContent !== value) { e.textContent = value; }
    });
    marker.setAttribute('data-refreshed', Number(marker.getAttribute('data-refreshed') || 0) + 1);
    marker.removeAttribute('data-error');
  }

  function poll() {
    get(marker.getAttribute('data-source'), redraw);
    document.querySelectorAll('[data-live-svg]').forEach(function (e) {
      get(e.getAttribute('data-live-svg'), function (svg) { e.innerHTML = svg; });
    });
    setTimeout(poll, 2000);
  }
  setTimeout(poll, 2000);
}());
