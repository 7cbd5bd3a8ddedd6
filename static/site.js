// Theme toggle, copy buttons, search and table filters. Everything else works without JavaScript.
(function () {
  "use strict";
  var root = document.documentElement;
  var siteRoot = new URL(root.getAttribute("data-root") || "./", location.href);

  function systemTheme() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  // ---------------------------------------------------------------- theme
  var toggle = document.getElementById("theme-toggle");
  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var next = (root.dataset.theme || systemTheme()) === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem("theme", next); } catch (e) { /* not remembered */ }
    });
  }

  // ---------------------------------------------------------------- copy buttons
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var box = button.closest(".code-file, .sample-io");
    var code = box && box.querySelector("pre code, pre.io:not(.io-empty)");
    if (!code || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
  });

  // ---------------------------------------------------------------- folds (the editorial: spoilers)
  // Open by default; a reader who folds it finds it folded on every page until they open it again.
  document.querySelectorAll("details[data-remember]").forEach(function (fold) {
    var key = "fold:" + fold.getAttribute("data-remember");
    try {
      if (localStorage.getItem(key) === "closed") fold.open = false;
    } catch (e) { /* storage may be off */ }
    fold.addEventListener("toggle", function () {
      try { localStorage.setItem(key, fold.open ? "open" : "closed"); } catch (e) { /* storage may be off */ }
    });
  });

  // ---------------------------------------------------------------- tabs: statement languages, solutions
  // Without JavaScript every panel is shown, one after another, each under its name. The choice is
  // remembered by the tab's data-key (the statement's language, the solution's programming language).
  document.querySelectorAll("[data-tabs]").forEach(function (list) {
    var tabs = Array.prototype.slice.call(list.querySelectorAll('[role="tab"]'));
    var remember = list.getAttribute("data-tabs");
    function select(tab, focus, save) {
      tabs.forEach(function (t) {
        var on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
      });
      if (focus) tab.focus();
      if (save) {
        try { localStorage.setItem(remember, tab.getAttribute("data-key")); } catch (e) { /* not remembered */ }
      }
    }
    list.hidden = false;
    list.parentNode.classList.add("has-lang-tabs");
    var saved = null;
    try { saved = localStorage.getItem(remember); } catch (e) { /* none */ }
    select(tabs.filter(function (t) { return t.getAttribute("data-key") === saved; })[0] || tabs[0], false, false);
    tabs.forEach(function (tab, index) {
      tab.addEventListener("click", function () { select(tab, false, true); });
      tab.addEventListener("keydown", function (event) {
        var step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
        if (event.key === "Home") step = -index;
        if (event.key === "End") step = tabs.length - 1 - index;
        if (step === undefined) return;
        event.preventDefault();
        select(tabs[(index + step + tabs.length) % tabs.length], true, true);
      });
    });
  });

  // ---------------------------------------------------------------- search (Pagefind)
  var box = document.querySelector(".search");
  var input = document.getElementById("search-input");
  var panel = document.getElementById("search-results");
  var pagefind = null;
  var searchId = 0;

  function note(text) {
    panel.innerHTML = "";
    var p = document.createElement("p");
    p.className = "search-note";
    p.textContent = text;
    panel.appendChild(p);
    panel.hidden = false;
  }

  function loadPagefind() {
    if (!pagefind) {
      pagefind = import(new URL("pagefind/pagefind.js", siteRoot).href).then(function (module) {
        return module.options({ excerptLength: 24 }).then(function () { return module; });
      });
    }
    return pagefind;
  }

  function resultLink(url) {
    return new URL(url.replace(/^\//, ""), siteRoot).href;
  }

  function show(results, query) {
    panel.innerHTML = "";
    if (!results.length) { note("No entry matches \u201c" + query + "\u201d."); return; }
    var list = document.createElement("ol");
    results.forEach(function (data) {
      var item = document.createElement("li");
      var link = document.createElement("a");
      link.href = resultLink(data.url);
      var title = document.createElement("span");
      title.className = "result-title";
      title.textContent = (data.meta && data.meta.title) || data.url;
      var excerpt = document.createElement("span");
      excerpt.className = "result-excerpt";
      excerpt.innerHTML = data.excerpt;  // Pagefind escapes the text and adds only <mark>
      link.appendChild(title);
      link.appendChild(excerpt);
      item.appendChild(link);
      list.appendChild(item);
    });
    panel.appendChild(list);
    panel.hidden = false;
  }

  // Pagefind also returns pages that match a query only loosely ("xyzzy" finding every "x"): a result
  // must contain each word of the query, or a word starting with its stem (all but its last two letters).
  function matchesEvery(query) {
    var stems = query.toLowerCase().split(/\s+/).filter(Boolean).map(function (word) {
      return word.length > 4 ? word.slice(0, word.length - 2) : word;
    });
    return function (data) {
      var text = ((data.meta && data.meta.title) || "") + " " + (data.content || "");
      text = text.toLowerCase();
      return stems.every(function (stem) { return text.indexOf(stem) >= 0; });
    };
  }

  function runSearch() {
    var query = input.value.trim();
    var id = ++searchId;
    if (!query) { panel.hidden = true; return; }
    loadPagefind().then(function (module) {
      return module.debouncedSearch(query, {}, 120);
    }).then(function (search) {
      if (search === null || id !== searchId) return null;
      return Promise.all(search.results.slice(0, 24).map(function (r) { return r.data(); }));
    }).then(function (results) {
      if (results && id === searchId) show(results.filter(matchesEvery(query)).slice(0, 8), query);
    }).catch(function () {
      note(location.protocol === "file:"
        ? "Search needs the site to be served over HTTP (any static host, or make serve)."
        : "The search index could not be loaded.");
    });
  }

  if (box && input && panel) {
    box.hidden = false;
    if (window.matchMedia && window.matchMedia("(pointer: fine)").matches) input.placeholder = "Search  /";
    input.addEventListener("input", runSearch);
    input.addEventListener("focus", function () { loadPagefind().catch(function () {}); if (input.value) runSearch(); });
    input.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { input.value = ""; panel.hidden = true; input.blur(); }
      if (event.key === "ArrowDown") {
        var first = panel.querySelector("a");
        if (first) { event.preventDefault(); first.focus(); }
      }
    });
    panel.addEventListener("keydown", function (event) {
      var links = Array.prototype.slice.call(panel.querySelectorAll("a"));
      var index = links.indexOf(document.activeElement);
      if (event.key === "ArrowDown" && index < links.length - 1) { event.preventDefault(); links[index + 1].focus(); }
      if (event.key === "ArrowUp") { event.preventDefault(); (index > 0 ? links[index - 1] : input).focus(); }
      if (event.key === "Escape") { panel.hidden = true; input.focus(); }
    });
    document.addEventListener("click", function (event) {
      if (!box.contains(event.target)) panel.hidden = true;
    });
    document.addEventListener("keydown", function (event) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName) || document.activeElement.isContentEditable;
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        input.focus();
        input.select();
      }
    });
  }

  // ---------------------------------------------------------------- track filters
  var filters = document.querySelector(".filters");
  if (filters) {
    filters.hidden = false;
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-entry]"));
    var count = filters.querySelector(".filter-count");
    var fields = {};
    filters.querySelectorAll("[data-filter]").forEach(function (field) { fields[field.dataset.filter] = field; });

    var apply = function () {
      var tag = fields.tag.value, year = fields.year.value, status = fields.status.value;
      var low = parseInt(fields.min.value, 10), high = parseInt(fields.max.value, 10);
      var shown = 0;
      rows.forEach(function (row) {
        var rating = parseInt(row.dataset.rating, 10);
        var visible = (!tag || (" " + row.dataset.tags + " ").indexOf(" " + tag + " ") >= 0)
          && (!year || row.dataset.year === year)
          && (!status || row.dataset.status === status)
          && (isNaN(low) || (!isNaN(rating) && rating >= low))
          && (isNaN(high) || (!isNaN(rating) && rating <= high));
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      document.querySelectorAll("section.group").forEach(function (group) {
        group.hidden = !group.querySelector("tr[data-entry]:not([hidden])");
      });
      count.textContent = "Showing " + shown + " of " + rows.length;
    };
    // The filters live in the address (#tag=graphs&year=2024), so a filtered table can be linked,
    // bookmarked and gone back to.
    var fromAddress = function () {
      var given = new URLSearchParams(location.hash.replace(/^#/, ""));
      Object.keys(fields).forEach(function (name) { fields[name].value = given.get(name) || ""; });
    };
    var toAddress = function () {
      var chosen = new URLSearchParams();
      Object.keys(fields).forEach(function (name) { if (fields[name].value) chosen.set(name, fields[name].value); });
      var hash = chosen.toString();
      history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    };
    Object.keys(fields).forEach(function (name) {
      fields[name].addEventListener("input", function () { apply(); toAddress(); });
    });
    window.addEventListener("hashchange", function () { fromAddress(); apply(); });
    if (/^#(tag|year|status|min|max)=/.test(location.hash)) fromAddress();
    apply();
  }
})();
