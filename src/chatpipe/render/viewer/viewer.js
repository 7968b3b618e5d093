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
  var items = [];
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

  function search() {
    var words = q.value.toLowerCase().split(/\s+/).filter(Boolean);
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

  q.addEventListener("input", search);
  window.addEventListener("hashchange", route);
  window.addEventListener("popstate", route);
  list.addEventListener("click", function (event) {
    var item = event.target.closest("li");
    if (!item || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var i = Number(item.id.slice(5));
    if (data[i].h) {
      event.preventDefault();
      go(i, true);
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
      q.blur();
    } else if (event.key === "ArrowDown" && (inSearch || list.contains(event.target))) {
      event.preventDefault();
      step(1);
    } else if (event.key === "ArrowUp" && (inSearch || list.contains(event.target))) {
      event.preventDefault();
      step(-1);
    } else if (event.key === "Enter" && inSearch) {
      if (current >= 0 && shown.indexOf(current) >= 0) open(current);
      else if (shown.length) step(1);
    } else if (!inSearch && (event.key === "j" || event.key === "k")) {
      step(event.key === "j" ? 1 : -1);
    }
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
  });

  search();
  if (window.location.hash) route();
  else if (data.length && data[0].h) open(0);
  document.body.dataset.ready = "true";
  performance.mark("chatpipe-ready");
})();
