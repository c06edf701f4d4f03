// The console pages' live parts. Plain DOM; no framework, nothing fetched from elsewhere.
// The console serves this script with its configured refresh interval (ipoib.console
// refreshMillis) in place of the 2000 below.
var REFRESH_MILLIS = 2000;

// Every request of the script: fetched past the browser's HTTP cache and given up after
// TIMEOUT_MILLIS, so that a request left waiting (an unanswered login prompt, a lost connection)
// holds up neither the next poll nor another request for the same address. Through the cache,
// Chromium makes a GET wait up to 20 s while another GET of the same address holds its cache
// entry (net/http/http_cache_transaction.cc, HttpCache::Transaction::DoAddToEntry,
// ERR_CACHE_LOCK_TIMEOUT). load(url) resolves to the answer's text and rejects with why not.
var TIMEOUT_MILLIS = Math.max(5 * REFRESH_MILLIS, 3000);
function load(url) {
  'use strict';
  var abort = new AbortController();
  var timer = setTimeout(function () { abort.abort(); }, TIMEOUT_MILLIS);
  return fetch(url, { cache: 'no-store', credentials: 'same-origin', signal: abort.signal })
    .then(function (response) {
      if (response.status !== 200) { throw new Error('HTTP ' + response.status); }
      return response.text();
    })
    .catch(function (e) {
      throw abort.signal.aborted ? new Error('no answer within ' + TIMEOUT_MILLIS + ' ms') : e;
    })
    .finally(function () { clearTimeout(timer); });
}

// The IPoIB page's chart: polls rates.json every REFRESH_MILLIS and draws packets/s (rx, tx) and drops/s per
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

  // The next poll is scheduled whatever became of this one.
  function poll() {
    load(box.getAttribute('data-source')).then(function (text) {
      draw(JSON.parse(text));
      setTimeout(poll, REFRESH_MILLIS);
    }).catch(function (e) {
      legend.textContent = 'console unreachable (' + e.message + '); retrying';
      setTimeout(poll, Math.max(REFRESH_MILLIS, 5000));
    });
  }
  poll();
}());


// Every page with a #ipoib-refresh marker: polls the page's JSON (the marker's data-source) every
// REFRESH_MILLIS and redraws each table[data-live] from the JSON array of that name (cells in the
// order of its data-columns; "outer/inner": the records of each outer record's inner array, with
// the outer record's fields), each [data-live-text] element's text from that JSON string, and each
// [data-live-svg] element from the SVG at that address. A table with a data-live-source is redrawn
// from the JSON at that address instead. The marker's data-refreshed counts the rounds of polls
// whose every answer was drawn (a test waits for one); data-error says why a poll of the last
// round failed (its answer's status, no answer within TIMEOUT_MILLIS, a network error).
(function () {
  'use strict';
  var marker = document.getElementById('ipoib-refresh');
  if (!marker) { return; }

  // As the console draws a cell (Html.cell): a list's items separated by a space, a map as k=v pairs.
  function cell(value) {
    if (value === null || value === undefined) { return '-'; }
    if (Array.isArray(value)) { return value.map(String).join(' '); }
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

  function records(data, key) {
    var slash = key.indexOf('/');
    var outer = data[slash < 0 ? key : key.substring(0, slash)];
    if (!Array.isArray(outer) || slash < 0) { return outer; }
    var inner = key.substring(slash + 1), out = [];
    outer.forEach(function (o) {
      (o[inner] || []).forEach(function (i) { out.push(Object.assign({}, o, i)); });
    });
    return out;
  }

  // Settles once whatever the answer: drawn, refused, failed, timed out.
  function get(url, then) {
    return load(url).then(then).catch(function (e) {
      marker.setAttribute('data-error', url + ': ' + (e && e.message || e));
    });
  }

  function redrawTables(tables, data) {
    tables.forEach(function (table) {
      var rows = records(data, table.getAttribute('data-live'));
      if (Array.isArray(rows)) { redrawTable(table, rows); }
    });
  }

  function redraw(text) {
    var data = JSON.parse(text);
    redrawTables(document.querySelectorAll('table[data-live]:not([data-live-source])'), data);
    document.querySelectorAll('[data-live-text]').forEach(function (e) {
      var value = data[e.getAttribute('data-live-text')];
      if (typeof value === 'string' && e.textContent !== value) { e.textContent = value; }
    });
  }

  function poll() {
    marker.removeAttribute('data-error');
    var polls = [[marker.getAttribute('data-source'), redraw]];
    var sources = {};
    document.querySelectorAll('table[data-live-source]').forEach(function (table) {
      var url = table.getAttribute('data-live-source');
      (sources[url] = sources[url] || []).push(table);
    });
    Object.keys(sources).forEach(function (url) {
      polls.push([url, function (text) { redrawTables(sources[url], JSON.parse(text)); }]);
    });
    document.querySelectorAll('[data-live-svg]').forEach(function (e) {
      polls.push([e.getAttribute('data-live-svg'), function (svg) { e.innerHTML = svg; }]);
    });
    // Every get settles within TIMEOUT_MILLIS, so the next round always comes.
    Promise.all(polls.map(function (p) { return get(p[0], p[1]); })).then(function () {
      if (!marker.getAttribute('data-error')) {
        marker.setAttribute('data-refreshed', Number(marker.getAttribute('data-refreshed') || 0) + 1);
      }
      setTimeout(poll, REFRESH_MILLIS);
    });
  }
  setTimeout(poll, REFRESH_MILLIS);
}());
