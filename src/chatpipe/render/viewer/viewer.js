// chatpipe's transcript viewer: lists the conversations embedded as JSON, filters them by
// text, shows one at a time. Its HTML was made and escaped by chatpipe; nothing here
// builds markup from transcript text (textContent only).
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);
  var list = document.getElementById("list");
  var view = document.getElementById("view");
  var q = document.getElementById("q");
  var count = document.getElementById("count");
  var hitsBar = document.getElementById("hits");
  var hitCount = document.getElementById("hit-count");
  var items = [];
  var hits = [];
  var hit = -1;
  var shown = [];
  var current = -1;
  var fragment = document.createDocumentFragment();
  data.forEach(function (entry, i) {
    var li = document.createElement("li");
    li.setAttribute("role", "option");
    li.id = "item-" + i;
    var a = document.createElement("a");
    a.href = entry.u || "#c" + (i + 1);
    var title = document.createElement("span");
    title.className = "title";
    title.textContent = entry.t;
    var meta = document.createElement("span");
    meta.className = "meta";
    var facts = [entry.d, entry.m, entry.n + (entry.n === 1 ? " message" : " messages")];
    if (entry.b > 1) facts.push(entry.b + " branches");
    meta.textContent = facts.filter(Boolean).join(" · ");
    a.appendChild(title);
    a.appendChild(meta);
    li.appendChild(a);
    fragment.appendChild(li);
    items.push(li);
    entry.lt = entry.t.toLowerCase();
  });
  list.appendChild(fragment);

  function terms() {
    return q.value.toLowerCase().split(/\s+/).filter(Boolean);
  }

  function search() {
    var words = terms();
    shown = [];
    for (var i = 0; i < data.length; i++) {
      var entry = data[i];
      var hit = words.every(function (w) {
        return entry.s.indexOf(w) >= 0 || entry.lt.indexOf(w) >= 0;
      });
      items[i].hidden = !hit;
      if (hit) shown.push(i);
    }
    count.textContent = words.length
      ? shown.length + " of " + data.length + " conversations match"
      : data.length + (data.length === 1 ? " conversation" : " conversations");
  }

  function open(i) {
    var entry = data[i];
    if (!entry) return;
    if (entry.u && !entry.h) {
      window.location.href = entry.u;
      return;
    }
    if (current >= 0) items[current].removeAttribute("aria-selected");
    current = i;
    items[i].setAttribute("aria-selected", "true");
    items[i].scrollIntoView({ block: "nearest" });
    view.innerHTML = entry.h;
    view.scrollTop = 0;
    document.title = entry.t + " — chatpipe";
    mark();
    if (hits.length) jump(1);
  }

  // the words searched for, marked in the open conversation (text nodes split around
  // each match; the marks are elements made here, their text the page's own)
  function unmark() {
    hits.forEach(function (m) {
      var parent = m.parentNode;
      if (!parent) return;
      parent.replaceChild(document.createTextNode(m.textContent), m);
      parent.normalize();
    });
    hits = [];
    hit = -1;
  }

  function ranges(text, words) {
    var lower = text.toLowerCase();
    if (lower.length !== text.length) return [];
    var found = [];
    words.forEach(function (w) {
      for (var at = lower.indexOf(w); at >= 0; at = lower.indexOf(w, at + w.length)) {
        found.push([at, at + w.length]);
      }
    });
    found.sort(function (a, b) { return a[0] - b[0]; });
    var merged = [];
    found.forEach(function (r) {
      var last = merged[merged.length - 1];
      if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
      else merged.push(r);
    });
    return merged;
  }

  function mark() {
    unmark();
    var words = terms();
    if (words.length && current >= 0) {
      var walker = document.createTreeWalker(view, NodeFilter.SHOW_TEXT);
      var nodes = [];
      for (var node = walker.nextNode(); node; node = walker.nextNode()) nodes.push(node);
      nodes.forEach(function (node) {
        var text = node.nodeValue;
        var found = ranges(text, words);
        if (!found.length) return;
        var pieces = document.createDocumentFragment();
        var at = 0;
        found.forEach(function (r) {
          if (r[0] > at) pieces.appendChild(document.createTextNode(text.slice(at, r[0])));
          var m = document.createElement("mark");
          m.className = "hit";
          m.textContent = text.slice(r[0], r[1]);
          pieces.appendChild(m);
          hits.push(m);
          at = r[1];
        });
        if (at < text.length) pieces.appendChild(document.createTextNode(text.slice(at)));
        node.parentNode.replaceChild(pieces, node);
      });
    }
    tally();
  }

  // matches a reader can be taken to: not in a branch now hidden
  function reachable() {
    return hits.filter(function (m) {
      return !m.closest("section.branch[hidden]");
    });
  }

  function tally() {
    var usable = reachable();
    hitsBar.hidden = !terms().length || current < 0;
    var at = usable.indexOf(hits[hit]);
    hitCount.textContent = usable.length
      ? (at >= 0 ? at + 1 + " of " : "") + usable.length + (usable.length === 1 ? " match" : " matches")
      : "no match here";
  }

  function jump(by) {
    var usable = reachable();
    if (!usable.length) return;
    var at = usable.indexOf(hits[hit]);
    at = at < 0 ? (by > 0 ? 0 : usable.length - 1) : (at + by + usable.length) % usable.length;
    if (hit >= 0) hits[hit].classList.remove("current");
    var m = usable[at];
    hit = hits.indexOf(m);
    m.classList.add("current");
    for (var d = m.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    m.scrollIntoView({ block: "center" });
    tally();
  }

  // a conversation opens as it is clicked (not a task later, on hashchange); its
  // address goes into the history, so Back and a bookmark find it again
  function go(i, push) {
    var entry = data[i];
    if (!entry) return;
    if (entry.h) {
      var address = "#c" + (i + 1);
      if (window.location.hash !== address) {
        if (push) window.history.pushState(null, "", address);
        else window.history.replaceState(null, "", address);
      }
    }
    open(i);
  }

  function route() {
    var match = /^#c(\d+)$/.exec(window.location.hash);
    if (match) open(Number(match[1]) - 1);
  }

  function step(by) {
    if (!shown.length) return;
    var at = shown.indexOf(current);
    var next = at < 0 ? (by > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + by));
    var entry = data[shown[next]];
    if (entry.u && !entry.h) {
      if (current >= 0) items[current].removeAttribute("aria-selected");
      current = shown[next];
      items[current].setAttribute("aria-selected", "true");
      items[current].scrollIntoView({ block: "nearest" });
    } else {
      go(shown[next], false);
    }
  }

  q.addEventListener("input", function () {
    search();
    mark();
  });
  document.getElementById("hit-next").addEventListener("click", function () {
    jump(1);
  });
  document.getElementById("hit-prev").addEventListener("click", function () {
    jump(-1);
  });
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  list.addEventListener("click", function (event) {
    var item = event.target.closest("li");
    if (!item || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var i = Number(item.id.slice(5));
    if (data[i].h) {
      event.preventDefault();
      go(i, true);
    } else if (data[i].u && q.value.trim()) {
      // a folder's page: it opens with the same words searched for
      event.preventDefault();
      window.location.href = data[i].u + "#q=" + encodeURIComponent(q.value.trim());
    }
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    var inSearch = event.target === q;
    if (event.key === "/" && !inSearch) {
      event.preventDefault();
      q.focus();
      q.select();
    } else if (event.key === "Escape" && inSearch) {
      q.value = "";
      search();
      mark();
      q.blur();
    } else if (event.key === "ArrowDown" && (inSearch || list.contains(event.target))) {
      event.preventDefault();
      step(1);
    } else if (event.key === "ArrowUp" && (inSearch || list.contains(event.target))) {
      event.preventDefault();
      step(-1);
    } else if (event.key === "Enter" && inSearch) {
      // the next match in the open conversation (Shift: the one before), or the first
      // conversation that matches
      if (current >= 0 && shown.indexOf(current) >= 0 && data[current].h) {
        if (reachable().length) jump(event.shiftKey ? -1 : 1);
      } else if (shown.length) step(1);
    } else if (!inSearch && (event.key === "n" || event.key === "N") && hits.length) {
      jump(event.key === "n" ? 1 : -1);
    } else if (!inSearch && (event.key === "j" || event.key === "k")) {
      step(event.key === "j" ? 1 : -1);
    }
  });

  // "Expand all tool calls": every call's panel opened, or all closed again
  view.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-expand]");
    if (!button) return;
    var panels = view.querySelectorAll("details." + button.dataset.expand);
    var opening = Array.prototype.some.call(panels, function (d) {
      return !d.open;
    });
    panels.forEach(function (d) {
      d.open = opening;
    });
    button.textContent = (opening ? "Collapse" : "Expand") + " all tool calls";
    button.setAttribute("aria-pressed", opening ? "true" : "false");
  });

  // a tree's branches: the buttons at the fork show another branch in place
  view.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-branch]");
    if (!button) return;
    var before = button.getBoundingClientRect().top;
    var branches = view.querySelectorAll("section.branch");
    var target = branches[Number(button.dataset.branch)];
    if (!target) return;
    branches.forEach(function (section) {
      section.hidden = section !== target;
    });
    var fork = target.querySelector("nav.fork");
    if (fork) view.scrollTop += fork.getBoundingClientRect().top - before;
    tally();
  });

  var asked = /^#q=(.*)$/.exec(window.location.hash);
  if (asked) q.value = decodeURIComponent(asked[1]);
  search();
  if (window.location.hash && !asked) route();
  else if (data.length && data[0].h) open(0);
  else tally();
  document.body.dataset.ready = "true";
  performance.mark("chatpipe-ready");
})();
